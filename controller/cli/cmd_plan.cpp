// testbed plan FILE [--json] [--steps]: what `up` would do, without root and without
// touching anything.
#include <iostream>

#include "args.h"
#include "commands.h"
#include "gaia_plan.h"
#include "placement_report.h"
#include "plan_table.h"
#include "strategies.h"
#include "update_scheduler.h"
#include "workload_placement.h"
#include "workload_settings.h"

namespace testbed::cli {

int run_plan(const Argv& argv) {
  Args args(argv, {"json", "steps"}, {"backend"});
  args.at_most(1, "testbed plan FILE [--json] [--steps]");
  if (args.positionals().empty()) throw UsageError("usage: testbed plan FILE [--json] [--steps]");
  PlanOptions options;
  if (auto b = args.option("backend")) options.backend = parse_backend_option(*b);
  const auto plan = load_plan(args.positional(0), options);
  if (!plan) return kExitInvalid;
  // A workload of a placement strategy: where its server goes, and its paths and rates.
  const Topology topology = parse_profile_file(args.positional(0));
  const nlohmann::json placement = workload_placement(topology);
  const auto strategy = topology.workload.find("strategy");
  const bool gaia = strategy != topology.workload.end() && strategy->second == "gaia";
  const bool mlfabric =
      strategy != topology.workload.end() && strategy_is_scheduled(strategy->second);
  if (args.flag("json")) {
    nlohmann::json j = plan_to_json(*plan);
    if (!placement.is_null()) j["placement"] = placement;
    if (gaia) j["gaia"] = {{"choices", gaia_choices()}};
    if (mlfabric) j["mlfabric"] = {{"choices", mlfabric_choices()}};
    std::cout << j.dump(2) << "\n";
  } else {
    print_plan_table(*plan, std::cout, args.flag("steps"));
    if (!placement.is_null()) {
      std::cout << "\nworkload " << placement["strategy"].get<std::string>() << ": ";
      placement::print_placement(placement, std::cout);
    }
    if (gaia) {
      std::cout << "\nworkload gaia: choices where the paper is silent:\n";
      for (const auto& c : gaia_choices()) std::cout << "  - " << c.get<std::string>() << "\n";
    }
    if (mlfabric) {
      std::cout << "\nworkload " << strategy->second << ": choices where the paper is silent:\n";
      const nlohmann::json choices = mlfabric_choices();  // items() only views it
      for (const auto& [key, c] : choices.items())
        std::cout << "  - " << key << ": " << c.get<std::string>() << "\n";
    }
  }
  return kExitOk;
}

}  // namespace testbed::cli
