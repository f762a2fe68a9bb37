// MLfabric on the parameter server (controller/training/mlfabric/ plans; this carries the
// plans out on the nodes), as the core's policy (ps/ps_policy.h). Its parts share their
// books, so they are one policy, in three files:
//
// Scheduled updates (scheduled_updates.cpp; `scheduled: true`, MLfabric-A and -S): a worker
// does not push when its computation ends: it announces the update
//   -> update {clock, version, bytes, norm}  (version: the model version it was computed from)
// holds it, and goes on to pull and compute the next clock (the paper's push returns at
// once). For each held update it is told
//   send {clock, seq, to}  push it now to node `to` (the server, or an aggregator), as the
//                          server's update number seq
//   drop {clock}           discard it (the delay bound)
// An aggregator (a worker's node) is told
//   aggregate {seq, count}  sum places seq .. seq + count - 1 and push the sum to the
//                           server as one update covering them (update_sums.h)
// Servers apply scheduled updates and sums in seq order (ordered_pushes.h), report each
// message's arrival   -> arrived {seq}   (the scheduler compares it with its plan), and answer
// pulls with their version (updates applied) where the clock would be.
// With `replica: node` (Sec. 5.3), that node holds a hot-standby copy of the model: it
// applies the same places in the same order and reports
//   -> replica {applied}   after each update it applied
// A worker keeps a copy of each update it sends and is told
//   replicate {seq, clock, to}  push place seq (its update `clock`) to node `to` (the
//                               replica, or the replica's aggregator)
// and an aggregator may be told aggregate {seq, count, replica: true}: the sum goes to the
// replica.
//
// Failover (failover.cpp): when the server dies, every node is told
//   failover {server, first_seq, [from_checkpoint]}  the replica (or the checkpoints'
//                          standby) is the server from now; the scheduler's places start
//                          again at first_seq; held updates are announced again, and a
//                          pull under way is asked again of the new server
//
// Model distribution (distribution.cpp, Sec. 10.3): with `pull_batch_ms`, the server holds
// dense pulls for that long, then names the batch
//   -> pulls {batch, workers: [nodes], clocks: [each one's pull]}
// and is told distribute {batch, groups: [{via, to, at, clocks}]}; a distributor is told
// forward {batch, to, clocks}. Every pull of a batch gets the same version of the model.
// With MLfabric-S's distribution (`distribution: true`), the server is told
//   distribute {clock, groups: [{via, to: [nodes]}]}  answer clock's pulls of the workers in
//                          `to` through node `via` (a distributor), or itself (via -1);
//                          every clock after the first has a plan, and its answers wait
//                          for it
// and each distributor
//   forward {clock, to: [nodes]}  pass the model of `clock` the server sends on to them
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "agent/contracts/mlfabric/mlfabric_report.h"
#include "agent/protocols/mlfabric/ordered_pushes.h"
#include "agent/protocols/mlfabric/update_sums.h"
#include "agent/protocols/ps/ps_policy.h"

namespace testbed {

class MlfabricPolicy : public PsPolicy {
 public:
  MlfabricPolicy(const TrainingSetup& setup, PsCore& core);
  bool holds_shard_copy() const override;
  const char* shard_role() const override;
  bool command(const std::string& verb, const nlohmann::json& cmd) override;
  bool takes(const WireHeader& h) const override;
  void message(Received r) override;
  bool computed(uint64_t clock, SparseUpdate& update) override;
  bool answer(const PullReply& p, WireHeader& reply) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;
  void stats(nlohmann::json& node, nlohmann::json* shard) const override;

 private:
  using Clock = std::chrono::steady_clock;
  // Scheduled updates (scheduled_updates.cpp).
  void scheduled_command(const std::string& verb, const nlohmann::json& cmd);
  void announce(uint64_t clock, const SparseUpdate& u, uint64_t version);
  void send_scheduled(uint64_t seq, int to, SparseUpdate u, bool replica = false);
  void replicate(const nlohmann::json& cmd);
  void on_aggregator_part(Received& r);
  void send_sum(UpdateSum sum, bool replica = false);
  void on_ordered_push(Received r);
  // Failover (failover.cpp).
  void fail_over(const nlohmann::json& cmd);
  bool stale_after_failover(const WireHeader& h);         // counts it when it is
  void promote_from_checkpoint(const std::string& path);  // as the standby (Sec. 7.3)
  void write_checkpoint();                                // as the server, every `every` updates
  MlfabricFailoverSection failover_stats() const;
  // Distribution (distribution.cpp).
  struct DistributionGroupOrder {
    int via = -1;  // the distributor's node; -1: the server answers itself
    std::vector<int> to;
    std::vector<double> at;  // when the server sends, s after the first answer: the
                             // distributor's copy, or each direct answer
  };
  struct DistributionOrder {
    std::vector<DistributionGroupOrder> groups;
    std::optional<Clock::time_point> base;  // the first answer was ready: the sends' zero
    size_t answered = 0;                    // workers' answers handled
  };
  struct PacedSend {
    WireHeader header;
    std::vector<float> values;
  };
  void distribution_command(const std::string& verb, const nlohmann::json& cmd);
  const DistributionGroupOrder* group_of(uint64_t clock, int node) const;
  bool awaits_plan(const PullReply& p) const;  // a planned clock's answer, its plan not yet here
  bool send_planned(const PullReply& p, const WireHeader& reply);
  void pace(Clock::time_point base, double at_s, const WireHeader& h,
            const std::vector<float>& values);
  void send_due();
  std::chrono::milliseconds paced_timeout() const;
  void on_distributed(Received r);
  void forward(uint64_t clock);
  void hold_pull(int worker, uint64_t clock);
  void close_pull_batch();
  void answer_pull_batch(uint64_t batch, const nlohmann::json& groups);

  PsCore& core_;
  int self_;
  bool worker_;  // this node runs a worker
  // Scheduled updates.
  bool scheduled_;
  uint64_t pushes_sent_ = 0, dropped_ = 0;      // as a worker
  std::map<uint64_t, SparseUpdate> held_;       // announced, by clock: the scheduler's word awaited
  std::map<uint64_t, uint64_t> held_versions_;  // the model version each was computed from
  std::unique_ptr<UpdateSums> sums_;            // as an aggregator (every worker's node)
  OrderedPushes<Received> ordered_;             // as a server
  uint64_t ordered_messages_ = 0, ordered_bytes_ = 0;  // what reached the server, applied
  // The replica (Sec. 5.3).
  int replica_;                                   // its node; -1: none
  std::map<uint64_t, SparseUpdate> for_replica_;  // as a worker: sent to the server, by place
  std::set<uint64_t> replicated_early_;           // replicated before the word to send came
  std::unique_ptr<UpdateSums> replica_sums_;      // as the replica's aggregator
  uint64_t replicated_ = 0;
  ApplyLog apply_log_;                     // as server or replica: (applied, ns)
  std::vector<int64_t> clock_applied_ns_;  // as a synchronous server: per clock
  // The failover: the dead server's node, the first place of the new order, and what was
  // dropped as from before it (messages of the dead order, the dead server's).
  struct {
    int dead_server = -1;
    uint64_t first_seq = 0;
    uint64_t stale_messages = 0, reannounced = 0, repulled = 0;
    uint64_t skipped_places = 0, discarded_waiting = 0;  // as the promoted replica
  } failover_;
  // Sec. 7.3's checkpoints: the server's every `every` updates, to a file the standby
  // loads. What writing them cost the server (it applies nothing meanwhile).
  TrainingSetup::Checkpoint checkpoint_;
  uint64_t checkpointed_ = 0;  // the places the last checkpoint holds
  struct {
    uint64_t writes = 0, bytes = 0;
    double seconds = 0, max_s = 0;
  } checkpoint_cost_;
  std::optional<CheckpointLoaded> checkpoint_loaded_;  // as the promoted standby: what it loaded
  // MLfabric-S's distribution. The server holds a planned clock's answers until its plan
  // has come: the controller sends it before the clock's last update, but the agent may
  // read that update first.
  bool distribution_;
  std::map<uint64_t, DistributionOrder> distribute_;  // as the server: by clock
  std::map<uint64_t, std::vector<PullReply>> awaiting_plan_;
  std::multimap<Clock::time_point, PacedSend> paced_;  // the server's planned sends
  std::map<uint64_t, std::vector<int>> forward_to_;    // as a distributor: by clock
  std::map<uint64_t, Received> held_models_;           // as a distributor: came before the word
  uint64_t to_distributors_ = 0, answered_directly_ = 0, forwarded_ = 0, kept_ = 0;
  std::map<uint64_t, std::vector<uint64_t>> forward_clocks_;  // as a distributor: per batch
  // MLfabric-A: the server holds dense pulls for the batching interval, names the batch to
  // the controller, and answers the batch with one version once its plan comes.
  std::chrono::milliseconds pull_batch_interval_;     // 0: no batches (MLfabric-S, others)
  std::vector<std::pair<int, uint64_t>> pull_batch_;  // (worker's node, its pull's clock)
  Clock::time_point pull_batch_due_;
  std::map<uint64_t, std::vector<std::pair<int, uint64_t>>> pull_batches_;  // named, unplanned
  uint64_t next_pull_batch_ = 0;
};

// The registry's maker: an MlfabricPolicy when the setup asks for any of MLfabric's parts
// (scheduled updates, distribution, pull batches, a replica, checkpoints), else none.
std::unique_ptr<PsPolicy> make_mlfabric_policy(const TrainingSetup& setup, PsCore& core);

}  // namespace testbed
