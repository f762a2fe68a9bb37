#include "controller/training/mlfabric/mlfabric_figures.h"

#include <algorithm>

namespace testbed {

void mlfabric_scenario_figures(const std::vector<nlohmann::json>& runs,
                               std::map<std::string, double>& figures) {
  const auto failover = [](const nlohmann::json& run) {
    return run.contains("mlfabric") && run["mlfabric"].contains("failover");
  };
  if (runs.empty() || !failover(runs.front())) return;
  double lost = 0, recovery = 0;
  for (const auto& j : runs) {
    if (!failover(j)) continue;
    const auto& f = j["mlfabric"]["failover"];
    lost = std::max(lost, f.value("updates_lost", 0.0));
    recovery = std::max(recovery, f.value("crash_to_first_update_applied_s", 0.0));
  }
  figures["failover_updates_lost"] = lost;
  figures["failover_recovery_s"] = recovery;
}

}  // namespace testbed
