// testbed placement FILE: where APSP (Li et al.) puts the parameter server on a profile's
// links, and why: the LP bound and epoch time of every candidate, the chosen server's
// paths and rates. Pure computation, no root, nothing created. With --redraws N, the
// spread of APSP's gains over N seeded redraws of the link rates: the paper does not
// publish its rates, so its figures are one draw among these.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>

#include "agent/jobs/job.h"
#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/options/workload_settings.h"
#include "controller/placement/placement_report.h"
#include "controller/placement/rate_redraws.h"
#include "controller/placement/rounding.h"
#include "controller/placement/topology_graph.h"
#include "controller/placement/workload_placement.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/topology_parser.h"
#include "controller/topology/units.h"
#include "controller/training/strategies.h"

namespace testbed::cli {
namespace {

using namespace placement;

const char* const kPlacementUsage =
    "testbed placement FILE [--model M] [--scale S] [--rate-scale X] [--server NODE] "
    "[--capacity undirected|directed] [--seed N] [--draws R] [--redraws N] [--json]";

}  // namespace

int run_placement(const Argv& argv) {
  Args args(argv, {"json"},
            {"model", "scale", "rate-scale", "server", "capacity", "seed", "draws", "redraws"});
  args.at_most(1, kPlacementUsage);
  if (args.positionals().empty()) throw UsageError(std::string("usage: ") + kPlacementUsage);
  Topology t;
  try {
    t = parse_profile_file(args.positional(0));
  } catch (const ValidationError& e) {
    std::cerr << e.what();
    return kExitInvalid;
  }
  for (const char* key : {"model", "scale", "server", "capacity", "seed", "draws"}) {
    if (const auto v = args.option(key); v && key != std::string("server")) {
      const std::string why = check_workload_setting(key, *v);
      if (!why.empty()) throw UsageError("--" + std::string(key) + " '" + *v + "': " + why);
    }
  }
  const ModelProfile& model = find_model(args.option("model").value_or("resnet50"));
  // Full size by default: the paper's figures are for the whole models at full rates.
  const double scale = std::stod(args.option("scale").value_or("1"));
  const double rate_scale = std::stod(args.option("rate-scale").value_or("1"));
  if (!(scale > 0) || !(rate_scale > 0))
    throw UsageError("--scale and --rate-scale must be above 0");
  PlacementGraph g = graph_of(t);
  for (auto& l : g.links) {
    l.a2b_bps *= rate_scale;
    l.b2a_bps *= rate_scale;
  }
  PlacementOptions o;
  o.capacity = capacity_model_from(args.option("capacity").value_or("undirected"));
  o.seed = std::stoull(args.option("seed").value_or("1"));
  o.draws = std::stoi(args.option("draws").value_or("1"));
  const double model_bytes = 4.0 * static_cast<double>(model.parameters) * scale;
  const PlacementResult r = place(g, 8 * model_bytes, o);
  const std::string server = args.option("server").value_or("apsp");
  int chosen = 0;
  try {
    chosen = chosen_server(g, r, server, o.seed);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--server: " + std::string(e.what()));
  }
  nlohmann::json report = placement_report(g, r, chosen, model_bytes, o);
  report["profile"] = t.source_file;
  report["model"] = model.name;
  report["scale"] = scale;
  report["rate_scale"] = rate_scale;
  const int n = std::stoi(args.option("redraws").value_or("0"));
  if (n > 0) report["rate_sensitivity"] = rate_redraws(g, 8 * model_bytes, o, n);
  if (args.flag("json")) {
    std::cout << report.dump(1) << "\n";
    return kExitOk;
  }
  std::cout << t.source_file << ": " << model.name << " x" << format_factor(scale) << ", rates x"
            << format_factor(rate_scale) << "\n";
  print_placement(report, std::cout);
  if (n > 0) {
    const auto& s = report["rate_sensitivity"];
    std::cout << std::fixed << std::setprecision(1) << "over " << n
              << " redraws of the rates (500-5000 Mbit/s): APSP's reduction\n";
    for (const char* k : {"reduction_vs_random", "reduction_vs_most_connected"})
      std::cout << "  " << k << ": median " << 100 * s[k]["median"].get<double>() << "% (p10 "
                << 100 * s[k]["p10"].get<double>() << "%, p90 " << 100 * s[k]["p90"].get<double>()
                << "%, range " << 100 * s[k]["min"].get<double>() << "-"
                << 100 * s[k]["max"].get<double>() << "%)\n";
  }
  return kExitOk;
}

}  // namespace testbed::cli
