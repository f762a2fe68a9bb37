// An elastic run's figures for a scenario's expectations (docs/diloco.md#elastic-membership,
// docs/faults.md): how many times its membership changed and the compute utilization over
// the time its workers were in, the mean over a strategy's repetitions. The registry
// entries' scenario_figures hook of the systems that can be elastic (DiLoCo, Streaming
// DiLoCo, the asynchronous parameter server).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace testbed {

// `runs`: the summaries of the repetitions. A run with fixed membership has neither
// figure, so a bound on one fails (a scenario meant to churn that did not).
void membership_scenario_figures(const std::vector<nlohmann::json>& runs,
                                 std::map<std::string, double>& figures);

}  // namespace testbed
