// MLfabric's figures for a scenario's expectations (docs/faults.md): its failover, the worst
// over a strategy's repetitions. Its registry entries' scenario_figures hook.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace testbed {

// `runs`: the summaries of the repetitions; adds failover_updates_lost and
// failover_recovery_s when the runs failed over.
void mlfabric_scenario_figures(const std::vector<nlohmann::json>& runs,
                               std::map<std::string, double>& figures);

}  // namespace testbed
