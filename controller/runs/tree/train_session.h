// One `testbed train` run over agents that are up: set them up, measure the links, build
// the strategy's policy, iterate, and summarize. The agents' processes are the verb's
// business; this only talks to them.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "agent/contracts/tree_messages.h"
#include "agent/protocols/tree/sync_policy.h"
#include "controller/dynamics/link_control.h"
#include "controller/observe/metrics_sink.h"
#include "controller/options/run_options.h"
#include "controller/training/agent_group.h"

namespace testbed {

class TrainSession {
 public:
  TrainSession(const TrainOptions& options, AgentGroup& agents, std::vector<std::string> names,
               std::vector<std::string> endpoints, std::vector<LiveDirection> directions,
               std::ostream& progress, MetricsSink& metrics);

  void setup();
  // What the strategy knows of the network: measured by probe trains now, or (oracle,
  // for debugging) the configured rates. Fills graph().
  void measure();
  // Iterates, checking after each iteration that every node holds the same model.
  void train();
  // Every figure of the run as one JSON object (the results file).
  nlohmann::json summary(const std::string& lab) const;

  const ThroughputGraph& graph() const { return graph_; }
  double mean_iteration_s() const;
  double samples_per_s() const;

 private:
  int index(const std::string& name) const;
  void publish_measured();
  void publish_iteration(double seconds, const std::vector<IterationDone>& done);
  void record_edges(int iteration, const std::vector<IterationDone>& done, double aux_share);

  const TrainOptions& o_;
  AgentGroup& agents_;
  std::vector<std::string> names_, endpoints_;
  std::vector<LiveDirection> directions_;
  std::ostream& progress_;
  MetricsSink& metrics_;
  std::vector<std::vector<int>> to_, from_;  // physical out- and in-neighbours
  ThroughputGraph graph_;
  SyncPolicy policy_;
  std::vector<double> times_, losses_;
  bool ended_stalled_ = false;  // ended at --max-seconds while stalled
  double started_unix_s_ = 0;   // when iterating began: aligns iterations with timeline.csv
  std::vector<IterationDone> last_done_;  // cumulative counters, for the next deltas
  nlohmann::json policy_history_ = nlohmann::json::array();  // {iteration, version, roots}
  nlohmann::json edge_history_ = nlohmann::json::array();    // {iteration, aux_share, edges}
};

}  // namespace testbed
