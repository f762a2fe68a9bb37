// The figures of one strategy's runs in a scenario, which its expectations are judged by:
// means over the repetitions (a time to the target only when every repetition reached it),
// worsts where a bound is meant (the slowest iteration), the emulation's health, and the
// system's own figures, from its registry entry's hook.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "controller/scenario/scenario.h"

namespace testbed {

// `runs`: the summaries of one strategy's repetitions, each as `train --json` printed it.
void add_run_figures(const std::vector<nlohmann::json>& runs, StrategyOutcome& o);

}  // namespace testbed
