// testbed plan FILE [--json] [--steps]: what `up` would do, without root and without
// touching anything.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "plan_table.h"

namespace testbed::cli {

int run_plan(const Argv& argv) {
  Args args(argv, {"json", "steps"}, {"backend"});
  args.at_most(1, "testbed plan FILE [--json] [--steps]");
  if (args.positionals().empty()) throw UsageError("usage: testbed plan FILE [--json] [--steps]");
  PlanOptions options;
  if (auto b = args.option("backend")) options.backend = parse_backend_option(*b);
  const auto plan = load_plan(args.positional(0), options);
  if (!plan) return kExitInvalid;
  if (args.flag("json")) {
    std::cout << plan_to_json(*plan).dump(2) << "\n";
  } else {
    print_plan_table(*plan, std::cout, args.flag("steps"));
  }
  return kExitOk;
}

}  // namespace testbed::cli
