#include "agent/protocols/apsp/source_routes_policy.h"

#include <vector>

namespace testbed {

std::unique_ptr<PsPolicy> make_source_routes_policy(const TrainingSetup& setup, PsCore& core) {
  if (!setup.routes) return nullptr;
  return std::make_unique<SourceRoutesPolicy>(*setup.routes, setup.transfer, core);
}

SourceRoutesPolicy::SourceRoutesPolicy(const std::vector<SourceRoute>& routes,
                                       const std::string& mode, PsCore& core) {
  std::vector<Route> paths;
  for (const auto& r : routes) paths.push_back({r.nodes, r.pace_bytes_per_s});
  core.transfer().configure(transfer_mode_from(mode.empty() ? "native" : mode), paths);
}

}  // namespace testbed
