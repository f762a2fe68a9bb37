// Every parameter-server variant's policy on the session's side (runs/ps/ps_run_policy.h),
// one line each: the session makes those the run's strategy asks for. Here, above the
// systems' folders, as agent/protocols/protocol_registry.cpp is above the protocols.
#pragma once

#include <vector>

#include "controller/runs/ps/ps_run_policy.h"

namespace testbed {

const std::vector<PsRunPolicyMaker>& ps_run_policies();

// A variant's checks of the run's roles before any agent starts, for the options the
// session's own checks do not know (MLfabric's one server, its replica or standby): throws
// UsageError naming the option. `servers` and `workers` are node indices in `names`.
using PsRunCheck = void (*)(const TrainOptions& options, const std::vector<std::string>& names,
                            const std::vector<int>& servers, const std::vector<int>& workers);
const std::vector<PsRunCheck>& ps_run_checks();

}  // namespace testbed
