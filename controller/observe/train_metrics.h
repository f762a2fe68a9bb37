// The training half of the testbed's Prometheus metrics. `testbed train` publishes one
// event per measurement and per iteration (see TrainSession); the exporter applies them
// here to metrics in a registry it owns. Counters grow by the deltas an event carries, so
// a run that restarts its agents still only adds.
//
// Events (JSON):
//   {"event": "measured", "strategy", "nodes": [names], "mbit": [[from][to]]}
//   {"event": "iteration", "strategy", "seconds", "samples_per_node",
//    "policy": {"version", "shares": {node: share}},
//    "nodes": {name: {"seconds", "chunks_sent", "aux_chunks_sent", "chunks_forwarded",
//                     "bytes_sent": {peer: bytes}, "bytes_received": {peer: bytes}}}}
//   parameter-server strategies (PsSession):
//   {"event": "loss", "strategy", "loss"}
//   {"event": "worker_clock", "strategy", "node", "clock", "seconds", "compute_s"}
//   elastic runs (runs/diloco/elastic_membership.h), at the start and at each change:
//   {"event": "membership", "strategy", "members": [names], "outside": [names],
//    ["change": {"node", "what", "t_s"}]}
//   {"event": "run_end", "strategy", "final_loss", "time_to_target_s"}
//   every run, at its end: what the agents refused (peer_refusals.h)
//   {"event": "peers", "strategy", "nodes": {name: {"malformed": n, "refused": n}}}
//   launched jobs (`testbed launch`, job_metrics.h), "strategy" being the job's name:
//   {"event": "job_iteration", "strategy", "node", "seconds", ["samples"], ["compute_s"]}
//   {"event": "job_loss", "strategy", "node", "loss"}
//   {"event": "job_value", "strategy", "node", "name", "value"}
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <nlohmann/json.hpp>

#include <string>

namespace testbed {

class TrainMetrics {
 public:
  TrainMetrics(prometheus::Registry& registry, std::string lab);
  // Throws nlohmann::json::exception on a malformed event; unknown events are ignored.
  void apply(const nlohmann::json& event);

 private:
  std::string lab_;
  prometheus::Family<prometheus::Histogram>& iteration_seconds_;
  prometheus::Family<prometheus::Gauge>& samples_per_second_;
  prometheus::Family<prometheus::Counter>& iterations_;
  prometheus::Family<prometheus::Gauge>& policy_version_;
  prometheus::Family<prometheus::Gauge>& root_share_;
  prometheus::Family<prometheus::Counter>& chunks_sent_;
  prometheus::Family<prometheus::Counter>& aux_chunks_sent_;
  prometheus::Family<prometheus::Counter>& chunks_forwarded_;
  prometheus::Family<prometheus::Counter>& neighbor_sent_;
  prometheus::Family<prometheus::Counter>& neighbor_received_;
  prometheus::Family<prometheus::Gauge>& probe_throughput_;
  // Parameter-server strategies.
  prometheus::Family<prometheus::Gauge>& held_out_loss_;
  prometheus::Family<prometheus::Gauge>& worker_clock_;
  prometheus::Family<prometheus::Gauge>& time_to_target_;
  // Compute utilization over time: its rate is the share of wall time a worker computed.
  prometheus::Family<prometheus::Counter>& worker_compute_;
  // Elastic runs' membership.
  prometheus::Family<prometheus::Gauge>& elastic_members_;
  prometheus::Family<prometheus::Gauge>& elastic_member_;
  prometheus::Family<prometheus::Counter>& elastic_changes_;
  // What a run's agents refused: malformed messages, connections without the secret.
  prometheus::Family<prometheus::Gauge>& peer_malformed_;
  prometheus::Family<prometheus::Gauge>& peer_refused_;
  // Launched jobs' own numeric fields, under their names.
  prometheus::Family<prometheus::Gauge>& job_value_;
};

}  // namespace testbed
