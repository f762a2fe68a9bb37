// One `testbed train` run of a parameter-server strategy (bsp, ssp, async, gaia) over agents
// that are up: assign roles (a worker on every node, server shards on the chosen nodes),
// start the workers' own loops, watch them (progress, loss, a node that dies), stop them
// at the end of their iterations or of the wall-time budget, then evaluate the final
// model and collect what every shard counted. No per-iteration barrier is run here.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/contracts/worker_events.h"
#include "agent/jobs/job.h"
#include "controller/dynamics/link_control.h"
#include "controller/observe/metrics_sink.h"
#include "controller/options/run_options.h"
#include "controller/runs/ps/ps_run_policy.h"
#include "controller/training/agent_group.h"
#include "controller/training/loss_curve.h"
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

class PsSession : private PsRun {
 public:
  // `policies`: every variant's policy the session may run (runs/ps_run_policies.h); each
  // is made if the strategy asks for it.
  PsSession(const TrainOptions& options, AgentGroup& agents, std::vector<std::string> names,
            std::vector<std::string> endpoints, std::vector<LiveDirection> directions,
            std::ostream& progress, MetricsSink& metrics, Kernel& kernel,
            std::vector<PsRunPolicyMaker> policies = {});

  // Resolves --servers (throws UsageError), computes the target loss, sets the agents up.
  void setup();
  void train();
  // The lab's directions as they are now (the timeline's changes included), for a policy's
  // network monitor (MLfabric's); without one, the rates at the start hold.
  void set_rate_source(std::function<std::vector<LiveDirection>()> source) {
    rate_source_ = std::move(source);
  }
  // The lab's directory, where nodes.json records when a node crashed (a failover's figures).
  void set_lab_dir(std::string dir) { lab_dir_ = std::move(dir); }
  nlohmann::json summary(const std::string& lab) const;
  std::string headline() const;  // one line for people

 private:
  std::map<std::string, uint64_t> wan_counters();
  // RR-Sync and Tr-Sync: the workers' all-reduce holds the model, no server.
  bool all_reduce() const { return traits_.kind == StrategyKind::kAllReduce; }
  // What the policies see of the session (ps_run_policy.h).
  const TrainOptions& options() const override { return o_; }
  const StrategyTraits& traits() const override { return traits_; }
  const std::vector<std::string>& names() const override { return names_; }
  const std::vector<LiveDirection>& directions() const override { return directions_; }
  std::vector<LiveDirection> directions_now() const override {
    return rate_source_ ? rate_source_() : directions_;
  }
  const std::vector<int>& servers() const override { return servers_; }
  void set_servers(std::vector<int> servers) override { servers_ = std::move(servers); }
  const std::vector<int>& worker_nodes() const override { return worker_nodes_; }
  int worker_of_node(size_t node) const override { return worker_of_node_.at(node); }
  std::vector<WorkerClockStamps> worker_stamps() const override;
  AgentGroup& agents() override { return agents_; }
  std::ostream& progress() override { return progress_; }
  const std::vector<nlohmann::json>& node_stats() const override { return stats_; }
  const std::string& lab_dir() const override { return lab_dir_; }
  double wall_s() const override { return wall_s_; }
  bool finished(size_t node) const override { return finished_.at(node).has_value(); }
  uint64_t clocks(size_t node) const override { return clocks_.at(node); }
  void publish(nlohmann::json event) override {
    event["strategy"] = o_.strategy;
    metrics_.publish(event);
  }
  void handle_event(size_t node, const nlohmann::json& e, double t) override {
    on_event(node, e, t);
  }
  std::string consistency_label() const;
  // SSP and WSP read within a staleness bound (--staleness); the others have none.
  bool bounded() const { return o_.consistency == "ssp" || o_.consistency == "wsp"; }
  void on_event(size_t node, const nlohmann::json& e, double t);
  // Whether a worker node's model is the run's now (not an elastic run's that is outside:
  // left, crashed, or not come in yet); the loss curve counts only those.
  bool evaluated_now(size_t node) const;
  void count_in_curve(size_t node);
  // Workers outside at the end (an elastic run's that left, or never came in) hold the
  // record of the clocks they ran: told to stop, they send it, so their compute counts.
  void collect_outside_records(std::chrono::steady_clock::time_point start);

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
  LossCurve curve_;
  std::vector<std::optional<WorkerFinished>> finished_;  // per node, once it finished
  std::vector<double> reported_compute_s_;  // per node: its clocks' compute, as they ended
  std::vector<nlohmann::json> stats_;
  std::vector<uint64_t> clocks_;                         // per worker: clocks done
  std::map<uint64_t, std::vector<double>> per_clock_s_;  // clock -> workers' times
  uint64_t printed_clock_ = 0;
  double wall_s_ = 0;
  double final_loss_ = 0;
  bool stopped_early_ = false;
  bool ended_stalled_ = false;  // ended at --max-seconds while stalled: not evaluated
  std::map<std::string, uint64_t> wan_bytes_;  // per direction "from>to"
  std::string lab_dir_;
  std::function<std::vector<LiveDirection>()> rate_source_;
  std::vector<PsRunPolicyMaker> makers_;
  std::vector<std::unique_ptr<PsRunPolicy>> policies_;  // those this run's strategy asks for
};

}  // namespace testbed
