// testbed regress DIR [--junit FILE] [--baseline FILE] [--tolerance X]
//                     [--save-baseline FILE] [--out DIR]
// Runs every scenario (*.yaml) in DIR in name order, prints a pass/fail table, and exits 1
// when any expectation failed or, against a stored baseline, any strategy's samples/s
// fell by more than the tolerance. Every scenario is checked before the first runs.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/lab/plan_table.h"
#include "controller/runs/scenario_runner.h"
#include "controller/scenario/junit.h"
#include "controller/scenario/scenario.h"
#include "netns/private_files.h"
#include "netns/stop_signals.h"

namespace testbed::cli {
namespace {

namespace fs = std::filesystem;

// A regression is a strategy that now processes fewer samples per second than the
// baseline by more than the tolerance; a faster one is never flagged.
std::vector<JunitCase> compare_with_baseline(const ScenarioResult& r, const nlohmann::json& base,
                                             double tolerance) {
  std::vector<JunitCase> out;
  if (!base.contains(r.name)) return out;
  for (const auto& [strategy, was] : base[r.name].items()) {
    JunitCase c{r.name, "baseline: " + strategy + " samples/s", 0, false, ""};
    const auto it = r.strategies.find(strategy);
    if (it == r.strategies.end() || it->second.failed) {
      c.failed = true;
      c.message = strategy + " has no result to compare";
    } else {
      const double now = it->second.figures.at("samples_per_s");
      const double floor = was.get<double>() * (1 - tolerance);
      std::ostringstream m;
      m << std::fixed << std::setprecision(1) << now << " samples/s against a baseline of "
        << was.get<double>() << " (floor " << floor << " at tolerance " << tolerance << ")";
      c.failed = now < floor;
      c.message = m.str();
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

int run_regress(const Argv& argv) {
  const std::string usage = usage_of("regress");
  Args args(argv, {}, {"junit", "baseline", "tolerance", "save-baseline", "out"});
  args.at_most(1, usage);
  if (args.positionals().empty()) throw UsageError("usage: " + usage);
  const std::string dir = args.positional(0);
  if (!fs::is_directory(dir)) throw UsageError("'" + dir + "' is not a directory");
  // 25%: what separates a real regression from run-to-run noise on a loaded 2-core host.
  const double tolerance = std::stod(args.option("tolerance").value_or("0.25"));
  if (!(tolerance >= 0 && tolerance < 1)) throw UsageError("--tolerance must be in [0, 1)");
  nlohmann::json baseline = nlohmann::json::object();
  if (auto b = args.option("baseline")) {
    std::ifstream in(*b);
    baseline = nlohmann::json::parse(in, nullptr, false);
    if (!in || baseline.is_discarded() || !baseline.contains("scenarios"))
      throw UsageError("--baseline " + *b + ": not a baseline file (see --save-baseline)");
    baseline = baseline["scenarios"];
  }
  // Where the reports go is checked before the scenarios run, not after (private_files.h).
  for (const char* option : {"junit", "save-baseline"}) {
    if (auto f = args.option(option)) {
      try {
        check_output_file(*f);
      } catch (const std::exception& e) {
        throw UsageError(std::string("--") + option + " " + *f + ": " + e.what());
      }
    }
  }

  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw UsageError(dir + " has no scenarios (*.yaml)");
  std::vector<Scenario> scenarios;
  bool invalid = false;
  for (const auto& f : files) {
    try {
      scenarios.push_back(parse_scenario_file(f.string()));
      check_runnable(scenarios.back());
    } catch (const ValidationError& e) {
      std::cerr << e.what();
      invalid = true;
    }
  }
  if (invalid) return kExitInvalid;
  if (lacks_privileges("regress")) return kExitFailure;
  StopSignals stop_signals;  // netns/stop_signals.h

  const OutputDir out =
      OutputDir::open(args.option("out").value_or(default_results_dir("regress")));
  std::vector<JunitCase> cases;
  TextTable table({"SCENARIO", "RESULT", "SECONDS", "WHAT FAILED"});
  nlohmann::json saved = nlohmann::json::object();
  bool all_passed = true;
  for (const auto& s : scenarios) {
    if (stop_signals.received()) break;
    const ScenarioResult r = run_scenario(s, out.subdir(s.name), stop_signals.received());
    print_scenario_summary(s, r, std::cout);
    std::string failed;
    for (const auto& v : r.verdicts) {
      cases.push_back({s.name, v.expectation, r.seconds / std::max<size_t>(1, r.verdicts.size()),
                       !v.passed, v.detail});
      if (!v.passed) failed += (failed.empty() ? "" : "; ") + v.expectation;
    }
    for (const auto& [strategy, o] : r.strategies) {
      if (!o.failed) continue;
      cases.push_back({s.name, "run " + strategy, 0, true, o.failure});
      failed += (failed.empty() ? "" : "; ") + strategy + " failed";
    }
    for (auto& c : compare_with_baseline(r, baseline, tolerance)) {
      if (c.failed) failed += (failed.empty() ? "" : "; ") + c.name + " regressed: " + c.message;
      cases.push_back(std::move(c));
    }
    for (const auto& [strategy, o] : r.strategies)
      if (!o.failed) saved[s.name][strategy] = o.figures.at("samples_per_s");
    const bool ok = failed.empty() && r.passed();
    all_passed = all_passed && ok;
    std::ostringstream secs;
    secs << std::fixed << std::setprecision(0) << r.seconds;
    table.add({s.name, r.interrupted ? "INTERRUPTED" : (ok ? "pass" : "FAIL"), secs.str(), failed});
  }
  std::cout << "\nregress " << dir << ":\n";
  table.print(std::cout);
  if (auto j = args.option("junit")) {
    write_output_file(*j, junit_xml("testbed regress " + dir, cases));
    std::cout << "JUnit report: " << *j << "\n";
  }
  if (auto b = args.option("save-baseline")) {
    write_output_file(*b, nlohmann::json{{"scenarios", saved}}.dump(1) + "\n");
    std::cout << "baseline written: " << *b << "\n";
  }
  if (stop_signals.received()) return 128 + stop_signals.received().load();
  return all_passed ? kExitOk : kExitFailure;
}

}  // namespace testbed::cli
