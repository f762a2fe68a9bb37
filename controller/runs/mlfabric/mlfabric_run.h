// MLfabric-A's and MLfabric-S's part of a parameter-server session, as the session's policy
// (runs/ps/ps_run_policy.h): the scheduler (controller/training/mlfabric/) runs here, beside
// the agents' control socket, so its messages never cross the shaped links. Workers
// announce updates as events; the scheduler's words go back as commands; the network
// monitor re-reads the lab's rates. In four files: the scheduler (mlfabric_run.cpp), the
// model's distribution (mlfabric_distribution.cpp), the failover to a replica or a standby
// (mlfabric_failover.cpp), and the replica's figures (mlfabric_replica.cpp).
#pragma once

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agent/contracts/mlfabric/mlfabric_events.h"
#include "agent/contracts/mlfabric/mlfabric_report.h"
#include "controller/runs/ps/ps_run_policy.h"
#include "controller/training/mlfabric/distribution.h"
#include "controller/training/mlfabric/mlfabric_options.h"
#include "controller/training/mlfabric/update_scheduler.h"

namespace testbed {

// MLfabric's replica: the node --replica names, checked (UsageError); -1 when none.
// `option` names it in the refusal (--replica, or --standby for checkpoints).
int replica_node(const std::string& replica, const std::vector<std::string>& names, int server,
                 const std::vector<int>& workers, const std::string& option = "--replica");

class MlfabricRun : public PsRunPolicy {
 public:
  explicit MlfabricRun(PsRun& run)
      : run_(run), o_(run.options()), knobs_(mlfabric_knobs(o_.policy)) {}
  void setup(TrainingSetup& setup, const JobConfig& job, size_t parameters) override;
  bool event(size_t node, const nlohmann::json& e, double t) override;
  double drive(double now_s) override;
  bool node_died(size_t node, double now_s) override;
  void settle(const std::function<double()>& now_s) override;
  void summary(nlohmann::json& s) const override;
  // MLfabric-A's is its own model, named with its delay bound.
  std::string consistency_label() const override;

 private:
  std::map<size_t, double> configured_rates() const;
  // `first_seq`: the first place it gives (after a failover, where the dead one stopped).
  void setup_scheduler(const std::vector<int>& workers, size_t parameters, uint64_t first_seq = 0);
  void on_update(size_t node, const UpdateAnnounced& u, double t);
  nlohmann::json server_link_reading() const;
  // The failover (mlfabric_failover.cpp).
  nlohmann::json failover_summary() const;
  // The replica's divergence, measured against the bound the scheduler kept.
  nlohmann::json replication_summary(uint64_t div_max) const;
  // The model's distribution (mlfabric_distribution.cpp): MLfabric-S plans clock c+1 once
  // every worker was told to send its update of clock c; MLfabric-A plans the server's
  // batches of pulls as they come.
  void setup_distribution(const std::vector<std::pair<int, int>>& links,
                          const std::vector<int>& workers,
                          std::vector<std::vector<LinkPath>> between, size_t parameters,
                          size_t distributors);
  void on_sent(uint64_t clock, double now_s);
  void plan_distribution_of(uint64_t clock, double now_s);
  void plan_pull_batch(const PullBatch& batch, double now_s);
  // Tells the server (`key`: clock or batch) and each distributor; `members[i]` is the
  // worker the plan's index i stands for, `clock_of` (optional) each worker's pull.
  void send_distribution(const DistributionPlan& plan, const std::vector<int>& members,
                         const char* key, uint64_t value,
                         const std::map<int, uint64_t>& clock_of = {});
  std::vector<int> draw_distributors(size_t among);
  nlohmann::json distribution_summary() const;
  int server() const { return run_.servers().front(); }
  // MLfabric's sections of each node's final report, by node (empty for a node that sent
  // none); each was checked whole as it arrived (decode_agent_reply).
  std::vector<MlfabricReport> reports() const;

  PsRun& run_;
  const TrainOptions& o_;
  const MlfabricKnobs knobs_;  // its options, typed
  uint64_t delay_bound_ = 0;   // the scheduler's, unset resolved (MLfabric-A)
  std::unique_ptr<UpdateScheduler> scheduler_;
  int replica_ = -1;  // its replica's node, if it has one
  int standby_ = -1;  // the node that loads the server's last checkpoint when it dies (Sec. 7.3)
  size_t parameters_ = 0;    // the model's
  nlohmann::json failover_;  // what a failover found and did; null: none
  std::set<std::pair<int, uint64_t>> announced_since_failover_;  // (worker, clock)
  DistributionPaths distribution_paths_;  // mlfabric-s: server to workers, workers to workers
  double distribution_bytes_ = 0;
  size_t distributors_ = 0;  // k per clock; 0: the server answers every pull itself
  std::mt19937_64 distributor_rng_;
  std::map<uint64_t, size_t> sent_of_clock_;  // clock -> workers told to send its update
  struct {
    uint64_t plans = 0, distributors = 0, planned_server_sends = 0;
    uint64_t batches = 0, pulls_batched = 0;  // mlfabric-a
  } distribution_;
  double next_monitor_s_ = 0;
};

// The list's maker: an MlfabricRun when the strategy's updates are scheduled, else none.
std::unique_ptr<PsRunPolicy> make_mlfabric_run(PsRun& run);

// Before any agent starts (ps_run_policies.h): a scheduled run has one server, and its
// replica or standby a node of its own. Throws UsageError.
void check_mlfabric_roles(const TrainOptions& o, const std::vector<std::string>& names,
                          const std::vector<int>& servers, const std::vector<int>& workers);

}  // namespace testbed
