#include "controller/runs/scenario_figures.h"

#include <algorithm>

#include "controller/runs/run_health.h"
#include "controller/training/strategies.h"
#include "controller/training/strategy_registry.h"

namespace testbed {

void add_run_figures(const std::vector<nlohmann::json>& list, StrategyOutcome& o) {
  double mean = 0, sps = 0, aux = 0, worst = 0;
  for (const auto& j : list) {
    mean += j["mean_iteration_s"].get<double>();
    sps += j["samples_per_s"].get<double>();
    aux += j.value("aux_share", 0.0);
    for (double x : j["iteration_s"].get<std::vector<double>>()) worst = std::max(worst, x);
  }
  const auto n = static_cast<double>(list.size());
  o.figures = {{"mean_iteration_s", mean / n},
               {"samples_per_s", sps / n},
               {"aux_share", aux / n},
               {"max_iteration_s", worst},
               {"runs", n}};
  // The parameter-server strategies' convergence figures, as means over repetitions; a
  // time to the target loss only when every repetition reached it.
  // A launched job has them when it reported a loss (it has no staleness of ours).
  if (list.front().contains("final_loss") && !list.front()["final_loss"].is_null()) {
    double loss = 0, wan = 0, to_target = 0, stale = 0;
    bool reached = true;
    for (const auto& j : list) {
      loss += j["final_loss"].is_number() ? j["final_loss"].get<double>() / n : 0.0;
      wan += j["wan_bytes"].get<double>() / n;
      stale = std::max(stale, j.value("max_staleness", 0.0));
      reached &= j.contains("time_to_target_s") && !j["time_to_target_s"].is_null();
      if (reached) to_target += j["time_to_target_s"].get<double>() / n;
    }
    o.figures["final_loss"] = loss;
    o.figures["wan_bytes"] = wan;
    o.figures["max_staleness"] = stale;
    if (reached) o.figures["time_to_loss"] = to_target;
  }
  // Synchronous runs: communication per iteration once every update was ready
  // (clock_communication.h), the mean over repetitions of each run's mean.
  if (list.front().contains("communication") && list.front()["communication"].contains("mean_s")) {
    double comm = 0;
    for (const auto& j : list) comm += j["communication"].value("mean_s", 0.0) / n;
    o.figures["comm_per_iteration_s"] = comm;
  }
  // Compute utilization (time computing over wall time), the mean over repetitions.
  if (list.front().contains("compute_utilization")) {
    double u = 0;
    for (const auto& j : list)
      u += j["compute_utilization"].value("mean", 0.0) / static_cast<double>(list.size());
    o.figures["compute_utilization"] = u;
  }
  // The system's own figures (MLfabric's failover, Gaia's divergence through a fault).
  if (const StrategyTraits* t =
          find_strategy(split_placed(list.front().value("strategy", "")).first);
      t != nullptr && t->scenario_figures != nullptr)
    t->scenario_figures(list, o.figures);
  if (list.front().contains("comm_time_s")) {
    double comm = 0, ratio = 0;
    for (const auto& j : list) {
      comm += j["comm_time_s"].get<double>() / n;
      ratio += j.value("model_ratio", 0.0) / n;
    }
    o.figures["comm_time_s"] = comm;
    if (list.front().contains("model_ratio")) o.figures["model_ratio"] = ratio;
  }
  // The job's own WAN bytes (docs/jobs.md), counted apart from any job beside it.
  if (list.front().contains("job_traffic") &&
      list.front()["job_traffic"].value("accounted", false)) {
    double own = 0;
    for (const auto& j : list) own += j["job_traffic"].value("wan_bytes", 0.0) / n;
    o.figures["job_wan_bytes"] = own;
  }
  add_health_figures(list, o);
}

}  // namespace testbed
