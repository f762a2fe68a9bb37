// MLfabric-S's model distribution (Sec. 10.3) in a parameter-server session: once the
// scheduler has told every worker to send its update of clock c, the answers to the pulls
// of clock c+1 are planned (distribution.h) by the scheduler, from when the server is planned
// to have the clock's updates and around the transfers it reserved; the server and the
// distributors are told over the control socket, long before the clock's last update
// crosses a shaped link to the server. The server's send times count from its first answer.
#include <algorithm>
#include <numeric>

#include "ps_session.h"

namespace testbed {
namespace {

// The distributors' draws are apart from the aggregators' (the scheduler's), so turning
// the distribution on or off leaves the aggregation's draws as they were.
constexpr uint64_t kDistributorSeedSalt = 0x5eed0d15;

}  // namespace

void PsSession::setup_distribution(const std::vector<std::pair<int, int>>& links,
                                   const std::vector<int>& workers,
                                   std::vector<std::vector<LinkPath>> between, size_t parameters,
                                   size_t distributors) {
  // Worker a's node to worker w's: the aggregation's paths already run so (between[a][w]).
  distribution_paths_ = {{}, std::move(between)};
  for (int to : workers)
    distribution_paths_.from_server.push_back(hop_path(links, servers_.front(), to));
  distribution_bytes_ = static_cast<double>(parameters * sizeof(float));
  distributors_ = distributors;
  distributor_rng_.seed(o_.seed ^ kDistributorSeedSalt);
}

void PsSession::on_sent(uint64_t clock, double now_s) {
  if (distributors_ == 0) return;
  if (++sent_of_clock_[clock] < workers_) return;
  sent_of_clock_.erase(clock);
  plan_distribution_of(clock + 1, now_s);
}

void PsSession::plan_distribution_of(uint64_t clock, double now_s) {
  // The paper earmarks k distributors for each batch of requests; drawn anew each clock.
  std::vector<int> drawn(workers_);
  std::iota(drawn.begin(), drawn.end(), 0);
  std::shuffle(drawn.begin(), drawn.end(), distributor_rng_);
  drawn.resize(std::min(distributors_, drawn.size()));
  const DistributionPlan plan = scheduler_->plan_distribution_after_updates(
      drawn, distribution_paths_, distribution_bytes_, now_s);
  const auto node_of = [&](int worker) { return worker_nodes_[static_cast<size_t>(worker)]; };
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : plan.groups) {
    std::vector<int> to;
    std::vector<double> at;  // the server's sends: the distributor's copy, or each answer
    for (int w : g.workers) {
      to.push_back(node_of(w));
      if (g.distributor < 0)
        at.push_back(plan.server_start_s[static_cast<size_t>(w)] - plan.start_s);
    }
    if (g.distributor >= 0)
      at.push_back(plan.server_start_s[static_cast<size_t>(g.distributor)] - plan.start_s);
    const int via = g.distributor < 0 ? -1 : node_of(g.distributor);
    groups.push_back({{"via", via}, {"to", to}, {"at", at}});
    if (via >= 0) {
      agents_.send(static_cast<size_t>(via), {{"cmd", "forward"}, {"clock", clock}, {"to", to}});
      ++distribution_.distributors;
    }
  }
  agents_.send(static_cast<size_t>(servers_.front()),
               {{"cmd", "distribute"}, {"clock", clock}, {"groups", groups}});
  ++distribution_.plans;
  distribution_.planned_server_sends += static_cast<uint64_t>(plan.server_sends);
}

nlohmann::json PsSession::distribution_summary() const {
  if (distributors_ == 0) return {{"on", false}};
  uint64_t to_workers = 0, to_distributors = 0, forwarded = 0, kept = 0;
  for (const auto& st : stats_) {
    if (st.contains("server") && st["server"].contains("models_sent")) {
      to_workers = st["server"]["models_sent"]["to_workers"];
      to_distributors = st["server"]["models_sent"]["to_distributors"];
    }
    if (st.contains("distributor")) {
      forwarded += st["distributor"]["forwarded"].get<uint64_t>();
      kept += st["distributor"]["kept"].get<uint64_t>();
    }
  }
  const auto plans = static_cast<double>(std::max<uint64_t>(1, distribution_.plans));
  return {{"on", true},
          {"distributors", distributors_},
          {"clocks_planned", distribution_.plans},
          {"mean_distributors_used", static_cast<double>(distribution_.distributors) / plans},
          {"mean_server_sends_planned",
           static_cast<double>(distribution_.planned_server_sends) / plans},
          {"server_models_to_workers", to_workers},
          {"server_models_to_distributors", to_distributors},
          {"models_forwarded", forwarded},
          {"models_kept_by_distributors", kept}};
}

}  // namespace testbed
