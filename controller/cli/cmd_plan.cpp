// testbed plan FILE [--json] [--steps] [--routes] [--hosts N|PLACEMENT [--host NAME]]: what
// `up` would do, without root and without touching anything; with --hosts, the lab cut into
// per-host slices (docs/multihost.md). Routes come as their rule unless --routes.
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/hosts/host_report.h"
#include "controller/lab/plan_table.h"
#include "controller/options/workload_settings.h"
#include "controller/placement/placement_report.h"
#include "controller/placement/workload_placement.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/schedule.h"
#include "controller/topology/units.h"
#include "controller/training/strategies.h"

namespace testbed::cli {

namespace {

const char* const kPlanUsage =
    "testbed plan FILE [--json [--changes-until T]] [--steps] [--routes] [--backend B] [--hosts "
    "N|PLACEMENT [--host NAME]]";

// Each direction's schedule as the timeline will apply it, until `until_us`: the draws of a
// random schedule are a function of the lab's seed and the direction, so a script can build
// on the very rates a run will see (scripts/contention-profile.py).
void add_changes(nlohmann::json& j, const Plan& plan, int64_t until_us) {
  for (size_t l = 0; l < plan.links.size(); ++l) {
    for (const auto& [key, d] :
         {std::pair{"a2b", &plan.links[l].a2b}, std::pair{"b2a", &plan.links[l].b2a}}) {
      nlohmann::json changes = nlohmann::json::array();
      for (const auto& c : schedule_changes(d->params.schedule, d->stream, 0, until_us)) {
        nlohmann::json e = {{"at_s", static_cast<double>(c.at_us) / 1e6}};
        if (c.rate) e["rate_bits_per_s"] = c.rate->bits_per_s;
        if (c.delay) e["delay_us"] = c.delay->us;
        if (c.loss) e["loss"] = c.loss->value;
        if (c.down) e["down"] = *c.down;
        changes.push_back(e);
      }
      j["links"][l][key]["changes"] = changes;
    }
  }
}

// The plan cut over hosts: the placement and every slice, or one host's slice in full.
int run_sliced_plan(const Plan& plan, const Args& args) {
  const auto placement = load_host_placement(*args.option("hosts"), plan);
  if (!placement) return kExitInvalid;
  if (const auto host = args.option("host")) {
    const PlanSlice slice = host_slice(plan, *placement, *host);
    if (args.flag("json")) {
      nlohmann::json j = plan_to_json(slice.plan, args.flag("routes"));
      j["host"] = slice.host;
      j["expected_interfaces"] = slice.expected_interfaces;
      j["vxlan_interfaces"] = slice.vxlan_interfaces;
      std::cout << j.dump(2) << "\n";
    } else {
      print_plan_table(slice.plan, std::cout, args.flag("steps"), args.flag("routes"));
    }
    return kExitOk;
  }
  const auto slices = slice_plan(plan, *placement);
  if (args.flag("json")) {
    std::cout << slices_to_json(plan, *placement, slices).dump(2) << "\n";
  } else {
    print_host_placement(plan, *placement, slices, std::cout);
  }
  return kExitOk;
}

}  // namespace

int run_plan(const Argv& argv) {
  Args args(argv, {"json", "steps", "routes"}, {"backend", "hosts", "host", "changes-until"});
  args.at_most(1, kPlanUsage);
  if (args.positionals().empty()) throw UsageError(std::string("usage: ") + kPlanUsage);
  if (args.option("host") && !args.option("hosts")) throw UsageError("--host needs --hosts");
  PlanOptions options;
  if (auto b = args.option("backend")) options.backend = parse_backend_option(*b);
  const auto plan = load_plan(args.positional(0), options);
  if (!plan) return kExitInvalid;
  if (args.option("hosts")) return run_sliced_plan(*plan, args);
  // A workload of a placement strategy: where its server goes, and its paths and rates.
  const Topology topology = parse_profile_file(args.positional(0));
  const nlohmann::json placement = workload_placement(topology);
  // The workload's strategy, when it names one the registry knows: its choices are shown.
  const auto strategy = topology.workload.find("strategy");
  const StrategyTraits* traits =
      strategy == topology.workload.end() ? nullptr : find_strategy(strategy->second);
  const bool chose = traits != nullptr && traits->choices != nullptr;
  if (args.flag("json")) {
    nlohmann::json j = plan_to_json(*plan, args.flag("routes"));
    if (!placement.is_null()) j["placement"] = placement;
    if (chose) j[traits->section] = {{"choices", traits->choices()}};
    if (const auto until = args.option("changes-until")) {
      std::string why;
      const auto d = parse_duration(*until, why);
      if (!d || d->us <= 0)
        throw UsageError("--changes-until: " + (why.empty() ? "expected a time like 120s" : why));
      add_changes(j, *plan, d->us);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    print_plan_table(*plan, std::cout, args.flag("steps"), args.flag("routes"));
    if (!placement.is_null()) {
      std::cout << "\nworkload " << placement["strategy"].get<std::string>() << ": ";
      placement::print_placement(placement, std::cout);
    }
    if (chose) {
      std::cout << "\nworkload " << strategy->second << ": choices where the paper is silent:\n";
      const nlohmann::json choices = traits->choices();  // items() only views it
      for (const auto& [key, c] : choices.items())       // a list's keys are its indices
        std::cout << "  - " << (choices.is_object() ? key + ": " : "") << c.get<std::string>()
                  << "\n";
    }
  }
  return kExitOk;
}

}  // namespace testbed::cli
