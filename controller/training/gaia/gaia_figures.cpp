#include "controller/training/gaia/gaia_figures.h"

#include <algorithm>

namespace testbed {

void gaia_scenario_figures(const std::vector<nlohmann::json>& runs,
                           std::map<std::string, double>& figures) {
  const auto healed = [](const nlohmann::json& run) {
    return run.contains("gaia") && run["gaia"].contains("divergence") &&
           run["gaia"]["divergence"].contains("at_heal");
  };
  if (runs.empty() || !healed(runs.front())) return;
  double at_heal = 0, catch_up = 0;
  bool caught_up = true;
  for (const auto& j : runs) {
    const auto& d = j["gaia"]["divergence"];
    at_heal = std::max(at_heal, d.value("at_heal", 0.0));
    caught_up &= d.contains("caught_up_s") && d["caught_up_s"].is_number();
    if (caught_up) catch_up = std::max(catch_up, d["caught_up_s"].get<double>());
  }
  figures["divergence_at_heal"] = at_heal;
  if (caught_up) figures["catch_up_s"] = catch_up;
}

}  // namespace testbed
