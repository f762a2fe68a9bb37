#include "controller/placement/workload_placement.h"

#include "agent/jobs/job.h"
#include "controller/options/workload_settings.h"
#include "controller/placement/placement_report.h"
#include "controller/placement/rounding.h"
#include "controller/placement/topology_graph.h"
#include "controller/training/strategies.h"

namespace testbed {

using namespace placement;

nlohmann::json workload_placement(const Topology& t) {
  const auto get = [&](const std::string& k, const std::string& fallback) {
    const auto it = t.workload.find(k);
    return it == t.workload.end() ? fallback : it->second;
  };
  const auto [strategy, server] = split_placed(get("strategy", ""));
  const StrategyTraits* traits = find_strategy(strategy);
  if (traits == nullptr || traits->kind != StrategyKind::kPlacement) return nullptr;
  const std::string model_name = get("model", "resnet50");
  if (is_job(model_name)) return nullptr;  // a job's size is known once it is built
  const double model_bytes = 4.0 * static_cast<double>(find_model(model_name).parameters) *
                             std::stod(get("scale", "0.01"));
  PlacementOptions o;
  o.capacity = capacity_model_from(get("capacity", "undirected"));
  o.seed = std::stoull(get("seed", "1"));
  o.draws = std::stoi(get("draws", "1"));
  const PlacementGraph g = graph_of(t);
  const PlacementResult r = place(g, 8 * model_bytes, o);
  const std::string how = placement_rule(strategy, server);
  nlohmann::json report = placement_report(g, r, chosen_server(g, r, how, o.seed), model_bytes, o);
  report["strategy"] = get("strategy", "");
  return report;
}

}  // namespace testbed
