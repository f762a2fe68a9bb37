#include "agent/protocols/apsp/source_routes_policy.h"

#include <vector>

namespace testbed {

std::unique_ptr<PsPolicy> make_source_routes_policy(const TrainingSetup& setup, PsCore& core) {
  if (!setup.routes.is_array()) return nullptr;
  return std::make_unique<SourceRoutesPolicy>(setup.routes, setup.transfer, core);
}

SourceRoutesPolicy::SourceRoutesPolicy(const nlohmann::json& routes, const std::string& mode,
                                       PsCore& core) {
  std::vector<Route> paths;
  for (const auto& r : routes)
    paths.push_back({r.at("nodes").get<std::vector<int>>(), r.value("pace_bytes_per_s", 0.0)});
  core.transfer().configure(transfer_mode_from(mode.empty() ? "native" : mode), paths);
}

}  // namespace testbed
