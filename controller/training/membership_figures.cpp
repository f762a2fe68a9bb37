#include "controller/training/membership_figures.h"

namespace testbed {

void membership_scenario_figures(const std::vector<nlohmann::json>& runs,
                             std::map<std::string, double>& figures) {
  // DiLoCo's is under "diloco", the parameter server's at the top.
  const auto membership = [](const nlohmann::json& run) -> const nlohmann::json* {
    if (run.contains("diloco") && run["diloco"].contains("membership"))
      return &run["diloco"]["membership"];
    return run.contains("membership") ? &run["membership"] : nullptr;
  };
  if (runs.empty()) return;
  double changes = 0, utilization = 0;
  for (const auto& j : runs) {
    const nlohmann::json* m = membership(j);
    if (m == nullptr) return;
    const auto n = static_cast<double>(runs.size());
    changes += static_cast<double>(m->value("changes", nlohmann::json::array()).size()) / n;
    utilization += m->value("compute_utilization_of_member_time", nlohmann::json::object())
                       .value("mean", 0.0) /
                   n;
  }
  figures["membership_changes"] = changes;
  figures["member_utilization"] = utilization;
}

}  // namespace testbed
