// `testbed train`'s command line: its usage text, and its arguments read as the run
// options' CommandLine (run_options.h resolves them with the profile's workload).
#pragma once

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/options/run_options.h"

namespace testbed::cli {

extern const char* const kTrainUsage;

Args parse_train_args(const Argv& argv);
CommandLine command_line(const Args& args);

}  // namespace testbed::cli
