// MLfabric's model distribution (Sec. 10.3) in a parameter-server session. MLfabric-S: once
// the scheduler has told every worker to send its update of clock c, the answers to the pulls
// of clock c+1 are planned (distribution.h) by the scheduler, from when the server is planned
// to have the clock's updates and around the transfers it reserved; the server and the
// distributors are told over the control socket, long before the clock's last update
// crosses a shaped link to the server. The server's send times count from its first answer.
// MLfabric-A: the server batches the pulls and names each batch; it is planned at once.
#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "controller/runs/mlfabric/mlfabric_run.h"

namespace testbed {
namespace {

// The distributors' draws are apart from the aggregators' (the scheduler's), so turning
// the distribution on or off leaves the aggregation's draws as they were.
constexpr uint64_t kDistributorSeedSalt = 0x5eed0d15;

}  // namespace

void MlfabricRun::setup_distribution(const std::vector<std::pair<int, int>>& links,
                                     const std::vector<int>& workers,
                                     std::vector<std::vector<LinkPath>> between, size_t parameters,
                                     size_t distributors) {
  // Worker a's node to worker w's: the aggregation's paths already run so (between[a][w]).
  distribution_paths_ = {{}, std::move(between)};
  for (int to : workers) distribution_paths_.from_server.push_back(hop_path(links, server(), to));
  distribution_bytes_ = static_cast<double>(parameters * sizeof(float));
  distributors_ = distributors;
  distributor_rng_.seed(o_.seed ^ kDistributorSeedSalt);
}

void MlfabricRun::on_sent(uint64_t clock, double now_s) {
  // MLfabric-A's clocks are each worker's own: its pulls are planned by batch instead.
  if (distributors_ == 0 || run_.traits().scheduling != Scheduling::kPerClock) return;
  if (++sent_of_clock_[clock] < run_.worker_nodes().size()) return;
  sent_of_clock_.erase(clock);
  plan_distribution_of(clock + 1, now_s);
}

std::vector<int> MlfabricRun::draw_distributors(size_t among) {
  // The paper earmarks k distributors for each batch of requests; drawn anew each time.
  std::vector<int> drawn(among);
  std::iota(drawn.begin(), drawn.end(), 0);
  std::shuffle(drawn.begin(), drawn.end(), distributor_rng_);
  drawn.resize(std::min(distributors_, drawn.size()));
  return drawn;
}

void MlfabricRun::plan_distribution_of(uint64_t clock, double now_s) {
  const DistributionPlan plan =
      scheduler_->plan_distribution_after_updates(draw_distributors(run_.worker_nodes().size()),
                                                  distribution_paths_, distribution_bytes_, now_s);
  std::vector<int> all(run_.worker_nodes().size());
  std::iota(all.begin(), all.end(), 0);
  send_distribution(plan, all, "clock", clock);
}

// MLfabric-A (Sec. 10.3): "at the server, requests are batched and responded with same
// version of model". The server closes a batch every batching interval and names its
// workers; the plan covers them alone, its distributors drawn among them (a distributor
// passes on a model its own worker asked for), from now, on the network the updates'
// transfers reserved.
void MlfabricRun::plan_pull_batch(const PullBatch& batch, double now_s) {
  // The contract has checked the nodes are the lab's, each once, with a clock each.
  std::vector<int> members;
  std::map<int, uint64_t> clock_of;
  for (size_t i = 0; i < batch.workers.size(); ++i) {
    const size_t node = batch.workers[i];
    if (run_.worker_of_node(node) < 0)
      throw std::runtime_error("the server's batch of pulls names node " + std::to_string(node) +
                               ", which is no worker");
    clock_of.emplace(static_cast<int>(node), batch.clocks[i]);
    members.push_back(run_.worker_of_node(node));
  }
  DistributionPaths paths;
  for (int a : members) {
    paths.from_server.push_back(distribution_paths_.from_server[static_cast<size_t>(a)]);
    paths.between.emplace_back();
    for (int b : members)
      paths.between.back().push_back(
          distribution_paths_.between[static_cast<size_t>(a)][static_cast<size_t>(b)]);
  }
  const DistributionPlan plan = scheduler_->plan_distribution_now(
      draw_distributors(members.size()), paths, distribution_bytes_, now_s);
  ++distribution_.batches;
  distribution_.pulls_batched += members.size();
  send_distribution(plan, members, "batch", batch.batch, clock_of);
}

void MlfabricRun::send_distribution(const DistributionPlan& plan, const std::vector<int>& members,
                                    const char* key, uint64_t value,
                                    const std::map<int, uint64_t>& clock_of) {
  const auto node_of = [&](int i) {
    return run_.worker_nodes()[static_cast<size_t>(members[static_cast<size_t>(i)])];
  };
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : plan.groups) {
    std::vector<int> to;
    std::vector<uint64_t> clocks;
    std::vector<double> at;  // the server's sends: the distributor's copy, or each answer
    for (int w : g.workers) {
      to.push_back(node_of(w));
      if (!clock_of.empty()) clocks.push_back(clock_of.at(to.back()));
      if (g.distributor < 0)
        at.push_back(plan.server_start_s[static_cast<size_t>(w)] - plan.start_s);
    }
    if (g.distributor >= 0)
      at.push_back(plan.server_start_s[static_cast<size_t>(g.distributor)] - plan.start_s);
    const int via = g.distributor < 0 ? -1 : node_of(g.distributor);
    nlohmann::json group = {{"via", via}, {"to", to}, {"at", at}};
    if (!clock_of.empty()) group["clocks"] = clocks;
    groups.push_back(group);
    if (via >= 0) {
      nlohmann::json forward = {{"cmd", "forward"}, {key, value}, {"to", to}};
      if (!clock_of.empty()) forward["clocks"] = clocks;
      run_.agents().send(static_cast<size_t>(via), forward);
      ++distribution_.distributors;
    }
  }
  run_.agents().send(static_cast<size_t>(server()),
                     {{"cmd", "distribute"}, {key, value}, {"groups", groups}});
  ++distribution_.plans;
  distribution_.planned_server_sends += static_cast<uint64_t>(plan.server_sends);
}

nlohmann::json MlfabricRun::distribution_summary() const {
  if (distributors_ == 0) return {{"on", false}};
  uint64_t to_workers = 0, to_distributors = 0, forwarded = 0, kept = 0;
  for (const MlfabricReport& r : reports()) {
    if (r.role == "server" && r.shard->models_sent) {
      to_workers = r.shard->models_sent->to_workers;
      to_distributors = r.shard->models_sent->to_distributors;
    }
    if (r.worker) {
      forwarded += r.worker->distributor.forwarded;
      kept += r.worker->distributor.kept;
    }
  }
  const auto plans = static_cast<double>(std::max<uint64_t>(1, distribution_.plans));
  nlohmann::json out = {
      {"on", true},
      {"distributors", distributors_},
      {"plans", distribution_.plans},
      {"mean_distributors_used", static_cast<double>(distribution_.distributors) / plans},
      {"mean_server_sends_planned",
       static_cast<double>(distribution_.planned_server_sends) / plans},
      {"server_models_to_workers", to_workers},
      {"server_models_to_distributors", to_distributors},
      {"models_forwarded", forwarded},
      {"models_kept_by_distributors", kept}};
  // MLfabric-A: pulls batched per interval, each batch one plan.
  if (distribution_.batches > 0)
    out["pulls_per_batch"] = static_cast<double>(distribution_.pulls_batched) /
                             static_cast<double>(distribution_.batches);
  return out;
}

}  // namespace testbed
