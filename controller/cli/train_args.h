// `testbed train`'s command line: its usage text, and its arguments read as the run
// options' CommandLine (run_options.h resolves them with the profile's workload).
#pragma once

#include <string>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/options/run_options.h"

namespace testbed::cli {

// The whole usage line: the strategies and every system's own options from the registry.
const std::string& train_usage();
// A line per strategy (its registry entry's `about`), with its own options under it.
std::string train_strategies_help();

Args parse_train_args(const Argv& argv);
CommandLine command_line(const Args& args);

}  // namespace testbed::cli
