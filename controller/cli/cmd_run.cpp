// testbed run SCENARIO [--out DIR]: runs a scenario (see controller/scenario.h): each
// strategy in turn on a freshly brought-up lab, the same seeded network timeline for all;
// prints a progress line per iteration and a summary table; exits 1 naming each
// expectation that failed. Ctrl-C or SIGTERM brings the lab down and keeps the partial
// results. Results: DIR (default ./testbed-results/NAME-TIME) with results.json (every
// figure, the exact inputs and versions), iterations.csv, links.csv, per-run files, PNGs.
#include <csignal>
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/lab/lab_state.h"
#include "controller/runs/scenario_runner.h"
#include "controller/scenario/scenario.h"
#include "netns/stop_signals.h"

namespace testbed::cli {
int run_run(const Argv& argv) {
  const std::string usage = usage_of("run");
  Args args(argv, {}, {"out", "fit"});
  args.at_most(1, usage);
  if (args.positionals().empty()) throw UsageError("usage: " + usage);
  Scenario s;
  try {
    s = parse_scenario_file(args.positional(0));
    check_runnable(s);
    if (const auto f = args.option("fit")) {
      PlanOptions checked;
      parse_fit_option(*f, checked);  // refused here, before any lab
      s.fit = *f;
    }
  } catch (const ValidationError& e) {
    std::cerr << e.what();
    return kExitInvalid;
  }
  if (lacks_privileges("run")) return kExitFailure;
  StopSignals stop_signals;  // netns/stop_signals.h
  const std::string out = args.option("out").value_or(default_results_dir(s.name));
  const ScenarioResult r = run_scenario(s, OutputDir::open(out), stop_signals.received());
  print_scenario_summary(s, r, std::cout);
  if (r.interrupted) {
    std::cerr << "testbed run: interrupted; the lab is down, partial results in " << out << "\n";
    return 128 + (stop_signals.received() ? stop_signals.received().load() : SIGINT);
  }
  for (const auto& v : r.verdicts) {
    if (!v.passed)
      std::cerr << "testbed run: expectation failed: '" << v.expectation << "' (" << v.detail
                << ")\n";
  }
  return r.passed() ? kExitOk : kExitFailure;
}

}  // namespace testbed::cli
