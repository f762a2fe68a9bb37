#include "controller/observe/train_metrics.h"

namespace testbed {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

// Iteration times from a tenth of a second (a tiny model on fast links) to ten minutes (a
// full-size model through a 20 Mbit/s star), doubling: 13 buckets cover it evenly on the
// log scale the strategies' differences live on.
prometheus::Histogram::BucketBoundaries iteration_buckets() {
  prometheus::Histogram::BucketBoundaries b;
  for (double x = 0.1; x < 700; x *= 2) b.push_back(x);
  return b;
}

}  // namespace

TrainMetrics::TrainMetrics(prometheus::Registry& registry, std::string lab)
    : lab_(std::move(lab)),
      iteration_seconds_(BuildHistogram()
                             .Name("testbed_iteration_duration_seconds")
                             .Help("Time a node took for one training iteration (compute and "
                                   "synchronization).")
                             .Register(registry)),
      samples_per_second_(BuildGauge()
                              .Name("testbed_samples_per_second")
                              .Help("Training samples a node processed per second in its last "
                                    "iteration.")
                              .Register(registry)),
      iterations_(BuildCounter()
                      .Name("testbed_iterations_total")
                      .Help("Training iterations completed (all nodes synchronized).")
                      .Register(registry)),
      policy_version_(BuildGauge()
                          .Name("testbed_policy_version")
                          .Help("Version of the synchronization policy in use.")
                          .Register(registry)),
      root_share_(BuildGauge()
                      .Name("testbed_policy_root_share_ratio")
                      .Help("Share of the model's chunks a node aggregates as a root (0: not "
                            "a root).")
                      .Register(registry)),
      chunks_sent_(BuildCounter()
                       .Name("testbed_chunks_sent_total")
                       .Help("Model chunks a node sent on tree edges.")
                       .Register(registry)),
      aux_chunks_sent_(BuildCounter()
                           .Name("testbed_aux_chunks_sent_total")
                           .Help("Model chunks a node sent on auxiliary paths (NetStorm-pro).")
                           .Register(registry)),
      chunks_forwarded_(BuildCounter()
                            .Name("testbed_chunks_forwarded_total")
                            .Help("Chunks a node forwarded for others along auxiliary paths.")
                            .Register(registry)),
      neighbor_sent_(BuildCounter()
                         .Name("testbed_neighbor_sent_bytes_total")
                         .Help("Bytes a node's agent sent to a peer.")
                         .Register(registry)),
      neighbor_received_(BuildCounter()
                             .Name("testbed_neighbor_received_bytes_total")
                             .Help("Bytes a node's agent received from a peer.")
                             .Register(registry)),
      probe_throughput_(BuildGauge()
                            .Name("testbed_probe_throughput_bytes_per_second")
                            .Help("Throughput of a link direction (node sends to peer) as the "
                                  "strategy measured it.")
                            .Register(registry)),
      held_out_loss_(BuildGauge()
                         .Name("testbed_held_out_loss")
                         .Help("Held-out loss of the job (parameter-server strategies): the mean "
                               "of the workers' latest evaluations.")
                         .Register(registry)),
      worker_clock_(BuildGauge()
                        .Name("testbed_worker_clock")
                        .Help("Clocks (iterations) a parameter-server worker has completed.")
                        .Register(registry)),
      time_to_target_(BuildGauge()
                          .Name("testbed_time_to_target_seconds")
                          .Help("Time the last run took to reach its target loss (-1: not "
                                "reached).")
                          .Register(registry)),
      worker_compute_(BuildCounter()
                          .Name("testbed_worker_compute_seconds_total")
                          .Help("Seconds a worker spent computing its clocks' updates, counted "
                                "as each clock ends; its rate is the worker's compute "
                                "utilization (the rest waited on the network).")
                          .Register(registry)),
      elastic_members_(BuildGauge()
                           .Name("testbed_elastic_members")
                           .Help("Workers in an elastic run's next outer step.")
                           .Register(registry)),
      elastic_member_(BuildGauge()
                          .Name("testbed_elastic_member")
                          .Help("1 while a worker is a member of the elastic run, 0 while it "
                                "is outside (left, crashed, not yet joined).")
                          .Register(registry)),
      elastic_changes_(BuildCounter()
                           .Name("testbed_elastic_membership_changes_total")
                           .Help("Membership changes of an elastic run, by kind (join, leave, "
                                 "crash).")
                           .Register(registry)),
      peer_malformed_(BuildGauge()
                          .Name("testbed_peer_malformed_messages")
                          .Help("Malformed messages a node's agent dropped during the last run "
                                "(the run went on).")
                          .Register(registry)),
      peer_refused_(BuildGauge()
                        .Name("testbed_peer_refused_connections")
                        .Help("Connections a node's agent refused during the last run: they "
                              "lacked the run's secret.")
                        .Register(registry)),
      job_value_(BuildGauge()
                     .Name("testbed_job_value")
                     .Help("A numeric field a launched job reported, by its name (the label "
                           "'name'), as last reported by the node.")
                     .Register(registry)) {}

void TrainMetrics::apply(const nlohmann::json& event) {
  const std::string kind = event.at("event");
  const std::string strategy = event.at("strategy");
  if (kind == "measured") {
    const auto names = event.at("nodes").get<std::vector<std::string>>();
    const auto& mbit = event.at("mbit");
    for (size_t from = 0; from < names.size(); ++from) {
      for (size_t to = 0; to < names.size(); ++to) {
        const double m = mbit.at(from).at(to).get<double>();
        if (m <= 0) continue;  // no link
        probe_throughput_
            .Add(
                {{"lab", lab_}, {"node", names[from]}, {"peer", names[to]}, {"strategy", strategy}})
            .Set(m * 1e6 / 8);  // Mbit/s to bytes/s, the base unit
      }
    }
    return;
  }
  const prometheus::Labels run = {{"lab", lab_}, {"strategy", strategy}};
  if (kind == "loss") return held_out_loss_.Add(run).Set(event.at("loss").get<double>());
  if (kind == "run_end") {
    held_out_loss_.Add(run).Set(event.at("final_loss").get<double>());
    return time_to_target_.Add(run).Set(event.at("time_to_target_s").get<double>());
  }
  if (kind == "peers") {
    for (const auto& [node, counts] : event.at("nodes").items()) {
      const prometheus::Labels labels = {{"lab", lab_}, {"node", node}, {"strategy", strategy}};
      peer_malformed_.Add(labels).Set(counts.at("malformed").get<double>());
      peer_refused_.Add(labels).Set(counts.at("refused").get<double>());
    }
    return;
  }
  if (kind == "worker_clock") {
    const prometheus::Labels labels = {
        {"lab", lab_}, {"node", event.at("node").get<std::string>()}, {"strategy", strategy}};
    worker_clock_.Add(labels).Set(event.at("clock").get<double>());
    iteration_seconds_.Add(labels, iteration_buckets()).Observe(event.at("seconds").get<double>());
    worker_compute_.Add(labels).Increment(event.at("compute_s").get<double>());
    return;
  }
  if (kind == "membership") {
    elastic_members_.Add(run).Set(static_cast<double>(event.at("members").size()));
    for (const char* side : {"members", "outside"})
      for (const auto& node : event.at(side))
        elastic_member_
            .Add({{"lab", lab_}, {"node", node.get<std::string>()}, {"strategy", strategy}})
            .Set(side == std::string("members") ? 1 : 0);
    if (event.contains("change"))
      elastic_changes_
          .Add({{"lab", lab_},
                {"strategy", strategy},
                {"change", event.at("change").at("what").get<std::string>()}})
          .Increment();
    return;
  }
  if (kind == "job_iteration" || kind == "job_loss" || kind == "job_value") {
    // Per node, as the parameter-server strategies' workers are: a launched job's nodes
    // iterate at their own pace.
    const prometheus::Labels labels = {
        {"lab", lab_}, {"node", event.at("node").get<std::string>()}, {"strategy", strategy}};
    if (kind == "job_loss") return held_out_loss_.Add(labels).Set(event.at("loss").get<double>());
    if (kind == "job_value") {
      prometheus::Labels named = labels;
      named["name"] = event.at("name").get<std::string>();
      return job_value_.Add(named).Set(event.at("value").get<double>());
    }
    const double seconds = event.at("seconds").get<double>();
    iterations_.Add(labels).Increment();
    if (event.contains("compute_s"))
      worker_compute_.Add(labels).Increment(event.at("compute_s").get<double>());
    iteration_seconds_.Add(labels, iteration_buckets()).Observe(seconds);
    if (event.contains("samples") && seconds > 0)
      samples_per_second_.Add(labels).Set(event.at("samples").get<double>() / seconds);
    return;
  }
  if (kind != "iteration") return;
  iterations_.Add({{"lab", lab_}, {"strategy", strategy}}).Increment();
  const auto& policy = event.at("policy");
  policy_version_.Add({{"lab", lab_}, {"strategy", strategy}})
      .Set(policy.at("version").get<double>());
  for (const auto& [node, share] : policy.at("shares").items()) {
    root_share_.Add({{"lab", lab_}, {"node", node}, {"strategy", strategy}})
        .Set(share.get<double>());
  }
  const double samples = event.at("samples_per_node").get<double>();
  for (const auto& [node, n] : event.at("nodes").items()) {
    const prometheus::Labels labels = {{"lab", lab_}, {"node", node}, {"strategy", strategy}};
    const double seconds = n.at("seconds").get<double>();
    iteration_seconds_.Add(labels, iteration_buckets()).Observe(seconds);
    if (seconds > 0) samples_per_second_.Add(labels).Set(samples / seconds);
    chunks_sent_.Add(labels).Increment(n.at("chunks_sent").get<double>());
    aux_chunks_sent_.Add(labels).Increment(n.at("aux_chunks_sent").get<double>());
    chunks_forwarded_.Add(labels).Increment(n.at("chunks_forwarded").get<double>());
    for (const auto& [peer, bytes] : n.at("bytes_sent").items()) {
      neighbor_sent_.Add({{"lab", lab_}, {"node", node}, {"peer", peer}, {"strategy", strategy}})
          .Increment(bytes.get<double>());
    }
    for (const auto& [peer, bytes] : n.at("bytes_received").items()) {
      neighbor_received_
          .Add({{"lab", lab_}, {"node", node}, {"peer", peer}, {"strategy", strategy}})
          .Increment(bytes.get<double>());
    }
  }
}

}  // namespace testbed
