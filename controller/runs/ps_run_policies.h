// Every parameter-server variant's policy on the session's side (runs/ps/ps_run_policy.h),
// one line each: the session makes those the run's strategy asks for. Here, above the
// systems' folders, as agent/protocols/protocol_registry.cpp is above the protocols.
#pragma once

#include <vector>

#include "controller/runs/ps/ps_run_policy.h"

namespace testbed {

const std::vector<PsRunPolicyMaker>& ps_run_policies();

}  // namespace testbed
