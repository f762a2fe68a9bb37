#include "controller/cli/train_args.h"

#include <set>

#include "controller/options/core_options.h"
#include "controller/training/strategy_registry.h"

namespace testbed::cli {

// The command line's own settings, beside the options' tables: NetStorm's probe (for
// benchmarks), the run's flags, and how a lab over hosts reaches its agents.
const char* const kCommandLineOnly =
    "[--oracle] [--json] [--probe-only] [--probe-link A:B] [--probe-count N] "
    "[--probe-bytes B] [--agents-listen ADDR:PORT] [--van-security plain|curve]";

const std::string& train_usage() {
  static const std::string kUsage = [] {
    std::string names;
    for (const auto& t : strategy_registry()) names += (names.empty() ? "" : "|") + t.name;
    std::string usage = "testbed train [LAB] --strategy " + names + "[@NODE]";
    for (const auto& o : core_options())
      if (o.name != "strategy") usage += " " + option_usage(o);
    usage += std::string(" ") + kCommandLineOnly;
    for (const auto& t : strategy_registry())
      for (const auto& o : t.options)  // an option several systems take is listed once
        if (usage.find(" " + option_usage(o)) == std::string::npos) usage += " " + option_usage(o);
    return usage;
  }();
  return kUsage;
}

std::string train_strategies_help() {
  std::string help;
  std::set<std::string> shown;  // an option several strategies take is explained once
  for (const auto& t : strategy_registry()) {
    help += "  " + t.name + std::string(t.name.size() < 18 ? 18 - t.name.size() : 1, ' ') +
            t.about + "\n";
    std::string again;
    for (const auto& o : t.options) {
      if (!shown.insert(o.name).second) {
        again += (again.empty() ? "" : " ") + ("--" + o.name);
        continue;
      }
      help += "      " + option_usage(o) + " " + o.help + " (default " +
              (o.fallback.empty() ? "unset" : o.fallback) + ")\n";
    }
    if (!again.empty()) help += "      also " + again + ", as above\n";
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
