// Gaia's figures for a scenario's expectations (docs/faults.md): how far its replicas had
// drifted apart when a cut healed, and how long they took to catch up, the worst over a
// strategy's repetitions. Its registry entry's scenario_figures hook.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace testbed {

// `runs`: the summaries of the repetitions. A run whose replicas never came back counts as
// never caught up: no catch_up_s, so a bound on it fails.
void gaia_scenario_figures(const std::vector<nlohmann::json>& runs,
                           std::map<std::string, double>& figures);

}  // namespace testbed
