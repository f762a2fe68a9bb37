// One `testbed train` run of a parameter-server strategy (bsp, ssp, async, gaia) over agents
// that are up: assign roles (a worker on every node, server shards on the chosen nodes),
// start the workers' own loops, watch them (progress, loss, a node that dies), stop them
// at the end of their iterations or of the wall-time budget, then evaluate the final
// model and collect what every shard counted. No per-iteration barrier is run here.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "agent/jobs/job.h"
#include "agent/protocols/ps/key_map.h"
#include "agent/store/pib_index.h"
#include "controller/dynamics/link_control.h"
#include "controller/observe/metrics_sink.h"
#include "controller/options/run_options.h"
#include "controller/training/agent_group.h"
#include "controller/training/gaia/gaia_plan.h"
#include "controller/training/gaia/replica_divergence.h"
#include "controller/training/loss_curve.h"
#include "controller/training/mlfabric/distribution.h"
#include "controller/training/mlfabric/update_scheduler.h"
#include "controller/training/strategies.h"
#include "netns/kernel.h"

namespace testbed {

// The server shards' nodes from --servers: all, best (the best-connected node by
// configured rates), or node names. Throws UsageError naming a node that is not there.
std::vector<int> resolve_servers(const std::string& spec, const std::vector<std::string>& names,
                                 const std::vector<LiveDirection>& directions);
// The workers' nodes from --workers: all, or node names (a cluster's switch or a server of
// its own is no worker). Throws UsageError naming a node that is not there.
std::vector<int> resolve_workers(const std::string& spec, const std::vector<std::string>& names);

// MLfabric's replica: the node --replica names, checked (UsageError); -1 when none.
// `option` names it in the refusal (--replica, or --standby for checkpoints).
int replica_node(const std::string& replica, const std::vector<std::string>& names, int server,
                 const std::vector<int>& workers, const std::string& option = "--replica");

class PsSession {
 public:
  PsSession(const TrainOptions& options, AgentGroup& agents, std::vector<std::string> names,
            std::vector<std::string> endpoints, std::vector<LiveDirection> directions,
            std::ostream& progress, MetricsSink& metrics, Kernel& kernel);

  // Resolves --servers (throws UsageError), computes the target loss, sets the agents up.
  void setup();
  void train();
  // MLfabric's network monitor: the lab's directions as they are now (the timeline's
  // changes included); without one, the rates at the start hold.
  void set_rate_source(std::function<std::vector<LiveDirection>()> source) {
    rate_source_ = std::move(source);
  }
  // The lab's directory, where nodes.json records when a node crashed (a failover's figures).
  void set_lab_dir(std::string dir) { lab_dir_ = std::move(dir); }
  nlohmann::json summary(const std::string& lab) const;
  std::string headline() const;  // one line for people

 private:
  std::map<std::string, uint64_t> wan_counters();
  bool gaia() const { return traits_.kind == StrategyKind::kGaia; }
  // RR-Sync and Tr-Sync: the workers' all-reduce holds the model, no server.
  bool all_reduce() const { return traits_.kind == StrategyKind::kAllReduce; }
  // MLfabric-A and MLfabric-S: the scheduler places the updates.
  bool scheduled() const { return traits_.scheduled(); }
  // MLfabric-A (ps_mlfabric.cpp): the scheduler, its monitor, and its figures.
  std::map<size_t, double> configured_rates() const;
  // `first_seq`: the first place it gives (after a failover, where the dead one stopped).
  void setup_scheduler(const std::vector<int>& workers, size_t parameters, uint64_t first_seq = 0);
  // MLfabric-A with a replica: the server's agent died; the replica is the server from now
  // (ps_mlfabric_failover.cpp). Any other death ends the run, naming the node.
  void fail_over(size_t node, double now_s);
  nlohmann::json failover_summary() const;
  double drive_scheduler(double now_s);  // returns when it next has something to do
  void on_update(size_t node, const nlohmann::json& e, double t);
  // After the workers finished: the decisions still due go out, and the server applies
  // every update ordered before the model is evaluated.
  void settle_scheduled(const std::function<double()>& now_s);
  nlohmann::json mlfabric_summary() const;
  // MLfabric-S's model distribution (ps_mlfabric_distribution.cpp): planned for clock c+1
  // once every worker was told to send its update of clock c.
  void setup_distribution(const std::vector<std::pair<int, int>>& links,
                          const std::vector<int>& workers,
                          std::vector<std::vector<LinkPath>> between, size_t parameters,
                          size_t distributors);
  void on_sent(uint64_t clock, double now_s);
  void plan_distribution_of(uint64_t clock, double now_s);
  // MLfabric-A: the server's batch of pulls (workers' nodes, each pull's clock), planned now.
  void plan_pull_batch(const nlohmann::json& e, double now_s);
  // Tells the server (`key`: clock or batch) and each distributor; `members[i]` is the
  // worker the plan's index i stands for, `clock_of` (optional) each worker's pull.
  void send_distribution(const DistributionPlan& plan, const std::vector<int>& members,
                         const char* key, uint64_t value,
                         const std::map<int, uint64_t>& clock_of = {});
  std::vector<int> draw_distributors(size_t among);
  nlohmann::json distribution_summary() const;
  nlohmann::json server_link_reading() const;
  // The replica's divergence, measured against the bound the scheduler kept.
  nlohmann::json replication_summary(uint64_t div_max) const;
  GaiaKnobs gaia_knobs() const {
    return {o_.gaia_threshold, o_.gaia_ds,     o_.gaia_soft,     o_.gaia_local_staleness,
            o_.t_in_passes,    o_.gaia_groups, o_.gaia_partition};
  }
  nlohmann::json gaia_setup(const std::vector<int>& data_centers, size_t parameters);
  // Gaia's replicas, polled every eval interval, and its mirror watch's verdicts
  // (ps_gaia_divergence.cpp).
  void poll_divergence(double now_s);
  void on_gaia_event(size_t node, const nlohmann::json& e, double t);
  nlohmann::json gaia_partition_summary() const;
  std::unique_ptr<ReplicaDivergence> divergence_;
  nlohmann::json mirror_cuts_ = nlohmann::json::array();  // {t, node, mirror, cut}
  uint64_t malformed_digests_ = 0;
  double start_unix_s_ = 0;   // the run's start on the wall clock (the lab's timeline's)
  GaiaOverlay gaia_overlay_;  // the data-center groups and hubs of a Gaia run
  nlohmann::json store_setup(const JobConfig& job, const std::vector<int>& workers);
  std::string partition(const JobConfig& job, const std::vector<int>& workers,
                        const std::vector<std::vector<uint32_t>>& pibs, const IndexOptions& disk);
  std::string consistency_label() const;
  // SSP and WSP read within a staleness bound (--staleness); the others have none.
  bool bounded() const { return o_.consistency == "ssp" || o_.consistency == "wsp"; }
  void on_event(size_t node, const nlohmann::json& e, double t);

  const TrainOptions& o_;
  const StrategyTraits& traits_;  // o_.strategy's registry entry
  AgentGroup& agents_;
  std::vector<std::string> names_, endpoints_;
  std::vector<LiveDirection> directions_;
  std::ostream& progress_;
  MetricsSink& metrics_;
  Kernel& kernel_;

  std::vector<int> servers_;
  std::vector<int> worker_of_node_;  // per node: its worker index, -1 for a server only
  std::vector<int> worker_nodes_;    // per worker: its node
  size_t workers_ = 0;
  double target_ = 0;
  std::string target_source_;
  nlohmann::json long_run_;              // --target-rule long-run: BSP's end and how still it was
  std::vector<float> reference_;         // the single-process model after `iterations` clocks
  std::vector<double> reference_curve_;  // its held-out loss before each clock (0..clocks)
  nlohmann::json index_;                 // DRPS's parameter index, when --index on: its figures
  nlohmann::json partition_;             // DRPS's partition, when --partition on: its figures
  std::optional<KeyMap> partition_map_;  // and the shards' keys it gives
  LossCurve curve_;
  std::vector<nlohmann::json> finished_, stats_;
  std::vector<uint64_t> clocks_;                         // per worker: clocks done
  std::map<uint64_t, std::vector<double>> per_clock_s_;  // clock -> workers' times
  uint64_t printed_clock_ = 0;
  double wall_s_ = 0;
  double final_loss_ = 0;
  bool stopped_early_ = false;
  bool ended_stalled_ = false;  // ended at --max-seconds while stalled: not evaluated
  std::map<std::string, uint64_t> wan_bytes_;  // per direction "from>to"
  // Placement strategies: what the placement chose (placement_report.h), and the routes.
  nlohmann::json placement_;
  nlohmann::json routes_ = nlohmann::json::array();
  void choose_placement();
  std::unique_ptr<UpdateScheduler> scheduler_;  // mlfabric-a, mlfabric-s
  int replica_ = -1;                            // its replica's node, if it has one
  int standby_ = -1;  // the node that loads the server's last checkpoint when it dies (Sec. 7.3)
  size_t parameters_ = 0;    // the model's
  nlohmann::json failover_;  // what a failover found and did; null: none
  std::string lab_dir_;
  std::set<std::pair<int, uint64_t>> announced_since_failover_;  // (worker, clock)
  std::function<std::vector<LiveDirection>()> rate_source_;
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

}  // namespace testbed
