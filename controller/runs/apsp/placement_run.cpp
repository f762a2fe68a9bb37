// The placement strategies' policy of a parameter-server session (placement_run.h).
#include <algorithm>
#include <iomanip>
#include <ostream>

#include "agent/contracts/ps_node_report.h"
#include "agent/jobs/job.h"
#include "controller/placement/placement_report.h"
#include "controller/runs/apsp/placement_run.h"
#include "controller/training/strategies.h"

namespace testbed {
namespace {

// The lab's links at their rates now, as the placement sees them.
placement::PlacementGraph placement_graph(const std::vector<std::string>& names,
                                          const std::vector<LiveDirection>& directions) {
  placement::PlacementGraph g;
  g.names = names;
  const auto at = [&](const std::string& n) {
    return static_cast<int>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  for (const auto& d : directions) {
    if (g.links.size() <= d.link) g.links.resize(d.link + 1);
    auto& l = g.links[d.link];
    const auto bps = static_cast<double>(d.params.rate.bits_per_s);
    if (d.b2a) {
      l.b2a_bps = bps;
    } else {
      l.a = at(d.from);
      l.b = at(d.to);
      l.a2b_bps = bps;
    }
  }
  return g;
}

}  // namespace

std::unique_ptr<PsRunPolicy> make_placement_run(PsRun& run) {
  if (!run.options().placement) return nullptr;
  return std::make_unique<PlacementRun>(run);
}

bool PlacementRun::roles(std::vector<int>& workers, std::vector<int>& servers) {
  using namespace placement;
  const std::vector<std::string>& names = run_.names();
  const PlacementGraph g = placement_graph(names, run_.directions());
  const double model_bytes =
      4.0 * static_cast<double>(o_.job == "dense"
                                    ? o_.job_parameters
                                    : make_job({o_.job, o_.seed, 1, o_.scale}, 0)->parameters());
  const PlacementOptions options{capacity_model_from(knobs_.capacity), o_.seed, knobs_.draws};
  const PlacementResult r = placement::place(g, 8 * model_bytes, options);
  const std::string how = placement_rule(o_.strategy, o_.server);
  const int server = chosen_server(g, r, how, o_.seed);
  placement_ = placement_report(g, r, server, model_bytes, options);
  placement_["chosen_by"] = o_.server.empty() ? how : "fixed (" + o_.server + ")";
  placement_["mode"] = knobs_.mode;
  servers = {server};
  workers.erase(std::remove(workers.begin(), workers.end(), server), workers.end());
  for (const auto& f : r.candidates[static_cast<size_t>(server)].flows)
    routes_.push_back({f.path.nodes, f.rate_bps / 8 * kTcpGoodput});
  run_.progress() << o_.strategy << ": server " << names[static_cast<size_t>(server)] << " (v* "
                  << placement_["apsp"].get<std::string>() << ", LP bound " << std::fixed
                  << std::setprecision(3) << placement_["lp_bound_s"].get<double>() << " s, T_v "
                  << placement_["epoch_s"].get<double>() << " s, " << knobs_.mode << " mode)\n";
  return true;
}

void PlacementRun::setup(TrainingSetup& setup, const JobConfig&, size_t) {
  setup.routes = routes_;
  setup.transfer = knobs_.mode;
}

// APSP's figure: one epoch's communication time, the median iteration after the first (a
// warm-up: connections open, TCP's windows grow), beside what the placement predicts.
void PlacementRun::summary(nlohmann::json& s) const {
  std::vector<double> steady = s.at("iteration_s").get<std::vector<double>>();
  if (steady.size() > 1) steady.erase(steady.begin());
  std::sort(steady.begin(), steady.end());
  const double median = steady.empty() ? 0
                        : steady.size() % 2
                            ? steady[steady.size() / 2]
                            : (steady[steady.size() / 2 - 1] + steady[steady.size() / 2]) / 2;
  s["placement"] = placement_;
  s["comm_time_s"] = median;
  if (knobs_.mode == "model") {
    s["predicted_s"] = placement_["paced_s"];
    s["model_ratio"] = median / placement_["paced_s"].get<double>();
  }
  uint64_t relayed = 0;
  for (const auto& st : run_.node_stats())  // checked as they arrived (agent_reply.h)
    if (is_ps_node_report(st)) relayed += ps_node_report_from(st).relayed_bytes;
  s["relayed_bytes"] = relayed;
}

}  // namespace testbed
