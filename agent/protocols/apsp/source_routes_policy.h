// APSP's paths on the parameter server, as the core's policy: the controller's placement
// chose a path from every worker to the server and a rate per flow; this policy hands them
// to the core's transfer (transport/routed_transfer.h), so pushes and pulls follow them
// through the relays, stored and paced as the paper models it or cut through as TCP would.
// Without routes in the setup, messages take the kernel's routes.
#pragma once

#include <memory>

#include "agent/protocols/ps/ps_policy.h"

namespace testbed {

class SourceRoutesPolicy : public PsPolicy {
 public:
  // `routes`: [{nodes, pace_bytes_per_s}]; `mode`: "model" or "native" ("" is native).
  SourceRoutesPolicy(const std::vector<SourceRoute>& routes, const std::string& mode, PsCore& core);
};

// The registry's maker: a SourceRoutesPolicy when the setup gives routes, else none.
std::unique_ptr<PsPolicy> make_source_routes_policy(const TrainingSetup& setup, PsCore& core);

}  // namespace testbed
