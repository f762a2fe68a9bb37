#include "controller/cli/train_args.h"

#include <set>

#include "controller/training/strategy_registry.h"

namespace testbed::cli {

// The usage's fixed part: the options every strategy's parser knows by name. Each
// system's own options follow from its registry table, and the strategies from the registry.
const char* const kTrainOptions =
    "[--iterations N] [--delay-bound VERSIONS] [--aggregators all|K] [--replica NODE] "
    "[--div-max UPDATES] [--standby NODE --checkpoint-every UPDATES] [--distribution on|off] "
    "[--monitor plan|arrivals] "
    "[--model "
    "M|logreg|mf|lmf|sparse-lr] [--scale S] "
    "[--compute-ms MS|MIN-MAX] [--compute-as wait|cpu] [--staleness S|none] [--servers "
    "all|best|A,B] [--target-loss X] "
    "[--max-seconds T] [--eval-every T] [--server NODE] [--apsp-mode model|native] "
    "[--capacity undirected|directed] [--draws R] [--workers-per-dc K] [--target-rule "
    "share|converged|long-run] [--workers all|A,B] [--slow-dc NODE:FACTOR,...] "
    "[--stragglers SHARE:FACTOR] "
    "[--gaia-threshold "
    "P%] [--gaia-ds N|off] "
    "[--gaia-soft on|off] [--gaia-local bsp|ssp:S] [--gaia-groups auto|off|A,B/C,D] "
    "[--gaia-t pass|clock] [--gaia-partition continue|block] [--parallel bsp|ssp|async|wsp] "
    "[--store memory|disk] "
    "[--memory-budget-mb M] [--index on|off] [--partition on|off] "
    "[--index-k K] [--index-prune SHARE] "
    "[--chunk ELEMENTS] [--seed N] [--update-time T] [--primary-busy-bound N] "
    "[--aux-queue-length N] [--oracle] [--json] [--probe-only] [--probe-link A:B] "
    "[--probe-count N] [--probe-bytes B] [--agents-listen ADDR:PORT] [--van-security plain|curve]";

const std::string& train_usage() {
  static const std::string kUsage = [] {
    std::string names;
    for (const auto& t : strategy_registry()) names += (names.empty() ? "" : "|") + t.name;
    std::string usage = "testbed train [LAB] --strategy " + names + "[@NODE] " + kTrainOptions;
    for (const auto& t : strategy_registry())
      for (const auto& o : t.options)  // an option several systems take is listed once
        if (usage.find(" " + option_usage(o)) == std::string::npos) usage += " " + option_usage(o);
    return usage;
  }();
  return kUsage;
}

std::string train_strategies_help() {
  std::string help;
  for (const auto& t : strategy_registry()) {
    help += "  " + t.name + std::string(t.name.size() < 18 ? 18 - t.name.size() : 1, ' ') +
            t.about + "\n";
    for (const auto& o : t.options)
      help += "      " + option_usage(o) + " " + o.help + " (default " + o.fallback + ")\n";
  }
  return help;
}

Args parse_train_args(const Argv& argv) {
  // Every profile workload key is an option too; the probe settings are for the command
  // line only (benchmarks).
  std::set<std::string> valued(workload_keys().begin(), workload_keys().end());
  valued.insert(command_line_only_keys().begin(), command_line_only_keys().end());
  valued.insert("agents-listen");  // the run's, not the workload's: taken by run_train
  valued.insert("van-security");
  Args args(argv, {run_flags().begin(), run_flags().end()}, valued);
  args.at_most(1, train_usage());
  return args;
}

CommandLine command_line(const Args& args) {
  CommandLine line{args.options(), args.flags()};
  line.options.erase("agents-listen");
  line.options.erase("van-security");
  return line;
}

}  // namespace testbed::cli
