// DiLoCo's figures for a scenario's expectations (docs/diloco.md#elastic-membership): in
// an elastic run, how many times its membership changed and the compute utilization over
// the time its data centers were in, the mean over a strategy's repetitions. Its registry
// entries' scenario_figures hook (DiLoCo's and Streaming DiLoCo's).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace testbed {

// `runs`: the summaries of the repetitions. A run with fixed membership has neither
// figure, so a bound on one fails (a scenario meant to churn that did not).
void diloco_scenario_figures(const std::vector<nlohmann::json>& runs,
                             std::map<std::string, double>& figures);

}  // namespace testbed
