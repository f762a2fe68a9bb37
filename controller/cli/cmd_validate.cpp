// testbed validate FILE: report every error in a profile, or that it is valid.
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"

namespace testbed::cli {

int run_validate(const Argv& argv) {
  Args args(argv, {}, {});
  args.at_most(1, "testbed validate FILE");
  if (args.positionals().empty()) throw UsageError("usage: testbed validate FILE");
  const auto plan = load_plan(args.positional(0));
  if (!plan) return kExitInvalid;
  const auto count = [](size_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  std::cout << plan->source_file << ": valid (lab " << plan->lab << ": "
            << count(plan->nodes.size(), "node") << ", " << count(plan->links.size(), "link")
            << ")\n";
  return kExitOk;
}

}  // namespace testbed::cli
