// `testbed run`'s engine, shared with `testbed regress`: brings the scenario's lab up for
// each strategy (and repetition) in turn, trains, keeps what the lab measured, brings it
// down, and judges the expectations. Writes a results directory as it goes, so an
// interrupted run keeps what it finished.
#pragma once

#include <atomic>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "controller/scenario/scenario.h"
#include "netns/private_files.h"

namespace testbed {

struct ScenarioResult {
  std::string name;
  std::string out_dir;
  bool interrupted = false;
  std::map<std::string, StrategyOutcome> strategies;
  std::vector<Verdict> verdicts;
  double seconds = 0;
  bool passed() const;
};

// `stop` holds a signal number once the user asked to stop (0 until then).
// Every file goes into `out` through its descriptor (private_files.h).
ScenarioResult run_scenario(const Scenario& s, const OutputDir& out, const std::atomic<int>& stop);

}  // namespace testbed

namespace testbed {

// The summary table (one row per strategy, speed-up over the first) and the verdicts.
void print_scenario_summary(const Scenario& s, const ScenarioResult& r, std::ostream& out);

// Where results go unless --out says otherwise: testbed-results/NAME-TIME (colons
// replaced), relative to the working directory, so they outlive the lab.
std::string default_results_dir(const std::string& name);

// Checks what a run needs before it starts: the scenario's derived topology parses; and
// expands NAME@* into one strategy per node. Throws ValidationError.
void check_runnable(Scenario& s);

}  // namespace testbed
