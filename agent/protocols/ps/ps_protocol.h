// The parameter server: on every node, a worker (its own loop of pull, compute, push) and,
// on the nodes the controller names, a server shard (server_shard.h) holding a range of
// the model's keys. Workers push to and pull from every shard over the van, across the
// emulated links; the kernel's routes carry a message through the nodes between, unless
// the controller gives source routes (APSP's paths; routed_transfer.h).
// No barrier is run by the controller: the consistency model alone decides when a pull is
// answered.
//
// Commands:
//   setup {protocol: ps, endpoints, job: {name, seed, scale, [workers_per_node]}, workers: [nodes],
//          servers: [nodes], consistency, staleness, iterations, compute: {min_ms, max_ms},
//          seed, eval_interval_ms, [slow: {node: factor}],
//          [routes: [{nodes, pace_bytes_per_s}],
//          transfer: model|native],
//          [store: {dir, memory_budget_bytes, [pibs: [[job keys]]],
//                   [partition: FILE of one shard byte per job key]}]}  -> ready
//   start      workers begin at clock 0; events as they go:
//              clock {clock, seconds}, eval {clock, loss}, finished {clocks, ...}
//   stop       workers stop after what they are doing              -> finished
//   evaluate   pull the latest parameters and evaluate             -> evaluated {loss}
//   stats      what this node counted, as worker and as shard      -> stats {...}
// With `scheduled: true` in setup (MLfabric-A, controller/training/mlfabric/), a worker
// does not push when its computation ends: it announces the update
//   -> update {clock, version, bytes}     (version: the model version it was computed from)
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
// With `replica: node` in setup (Sec. 5.3), that node holds a hot-standby copy of the
// model: it applies the same places in the same order and reports
//   -> replica {applied}   after each update it applied
// A worker keeps a copy of each update it sends and is told
//   replicate {seq, clock, to}  push place seq (its update `clock`) to node `to` (the
//                               replica, or the replica's aggregator)
// and an aggregator may be told aggregate {seq, count, replica: true}: the sum goes to the
// replica.
// When the server dies, the controller fails over to the replica (ps_failover.cpp): every
// node is told
//   failover {server, first_seq}  the replica is the server from now; the scheduler's
//                          places start again at first_seq (those below died with the
//                          server or are dropped on arrival); held updates are announced
//                          again, and a pull under way is asked again of the new server
// With `pull_batch_ms` in setup (MLfabric-A's distribution, Sec. 10.3), the server holds
// dense pulls for that long, then names the batch
//   -> pulls {batch, workers: [nodes], clocks: [each one's pull]}
// and is told distribute {batch, groups: [{via, to, at, clocks}]}; a distributor is told
// forward {batch, to, clocks}. Every pull of a batch gets the same version of the model.
// With MLfabric-S's distribution (Sec. 10.3), the server is told
//   distribute {clock, groups: [{via, to: [nodes]}]}  answer clock's pulls of the workers in
//                          `to` through node `via` (a distributor), or itself (via -1);
//                          with `distribution: true` in setup, every clock after the
//                          first has a plan, and its answers wait for it
// and each distributor
//   forward {clock, to: [nodes]}  pass the model of `clock` the server sends on to them
// The scheduled parts are in ps_scheduled.cpp, the distribution in ps_distribution.cpp.
// Under WSP (consistency wsp) the first server's node is the job's master, and workers
// ask it for each clock beside their pulls (drps/ps_wsp.cpp).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/compute_time.h"
#include "agent/jobs/emulated_compute.h"
#include "agent/jobs/job.h"
#include "agent/protocols/apsp/routed_transfer.h"
#include "agent/protocols/drps/stored_shard_values.h"
#include "agent/protocols/drps/wsp_selector.h"
#include "agent/protocols/mlfabric/ordered_pushes.h"
#include "agent/protocols/mlfabric/update_sums.h"
#include "agent/protocols/ps/consistency.h"
#include "agent/protocols/ps/key_map.h"
#include "agent/protocols/ps/server_shard.h"
#include "agent/protocols/worker_clock_log.h"
#include "agent/runtime/protocol.h"
#include "agent/transport/wire.h"

namespace testbed {

class PsProtocol : public Protocol {
 public:
  explicit PsProtocol(AgentLink& link) : link_(link), self_(link.self()), log_(link) {}
  void setup(const nlohmann::json& cmd) override;
  void command(const std::string& verb, const nlohmann::json& cmd) override;
  void message(Received r) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;

 private:
  using Clock = std::chrono::steady_clock;
  // Worker side.
  void request(uint64_t clock, bool latest);
  void on_params(const Received& r);
  void params_complete();
  void push_update();
  void pushed();      // after an update went: the next clock's pull
  void next_clock();  // pulls for the next clock, unless stopped
  void apply_push(Received& r);
  // Scheduled (MLfabric-A, ps_scheduled.cpp).
  void setup_scheduled();
  void scheduled_command(const std::string& verb, const nlohmann::json& cmd);
  void announce_update();
  void announce(uint64_t clock, const SparseUpdate& u, uint64_t version);
  // MLfabric's failover (ps_failover.cpp).
  void fail_over(const nlohmann::json& cmd);
  bool stale_after_failover(const WireHeader& h);         // counts it when it is
  void promote_from_checkpoint(const std::string& path);  // as the standby (Sec. 7.3)
  void write_checkpoint();                                // as the server, every `every` updates
  nlohmann::json failover_stats() const;
  void send_scheduled(uint64_t seq, int to, SparseUpdate u, bool replica = false);
  void replicate(const nlohmann::json& cmd);
  void on_aggregator_part(Received& r);
  void send_sum(UpdateSum sum, bool replica = false);
  void on_ordered_push(Received r);
  // MLfabric-S's distribution (ps_distribution.cpp).
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
  // MLfabric-A's batches of pulls (ps_distribution.cpp).
  void hold_pull(int worker, uint64_t clock);
  void close_pull_batch();
  void answer_pull_batch(uint64_t batch, const nlohmann::json& groups);
  // WSP's master (drps/ps_wsp.cpp).
  void setup_wsp();
  void tell_wsp_master(WireKind kind, int64_t iteration_ns = 0);
  void wsp_message(const Received& r);
  nlohmann::json wsp_stats() const;
  void finish();
  void count_pulled(const std::vector<uint32_t>& keys);
  // Server side.
  void send_replies(const std::vector<PullReply>& replies);
  int worker_index(int node) const;
  std::unique_ptr<ShardValues> stored_values(const nlohmann::json& store, KeyRange range);
  nlohmann::json stats() const;

  AgentLink& link_;
  int self_;
  std::unique_ptr<RoutedTransfer> transfer_;  // every key-value message goes through it
  Consistency model_;
  std::vector<int> workers_, servers_;  // node of each worker, of each shard
  KeyMap keys_{0, 1};  // which shard holds each key, under which key (DRPS's partition)
  std::unique_ptr<ServerShard> shard_;   // when this node hosts one
  StoredShardValues* stored_ = nullptr;  // its values, when on disk (DRPS)
  StoreCounters loaded_;                 // the store's counters once the model was loaded
  int my_shard_ = -1;

  std::unique_ptr<Job> job_;  // when this node is a worker
  int iterations_ = 0;
  ComputeRange compute_;
  int per_node_ = 1;       // workers this node's worker stands for
  double slowdown_ = 1.0;  // this node's compute time factor (a slow data center)
  Stragglers stragglers_;  // MLfabric's compute settings: a worker slowed now and then
  uint64_t seed_ = 0;
  std::chrono::milliseconds eval_interval_{1000};

  enum class Phase { kIdle, kWaiting, kComputing, kFinished, kEvaluating } phase_ = Phase::kIdle;
  uint64_t clock_ = 0;
  std::vector<float> w_;                  // this worker's view of the parameters
  int replies_left_ = 0;                  // shards yet to answer the pull under way
  std::vector<uint64_t> read_min_clock_;  // per shard: what the values read reflect
  bool evaluate_these_ = false;           // the pull under way brings values to evaluate
  bool stop_requested_ = false;
  Clock::time_point next_eval_;
  EmulatedCompute emulated_;  // the clock's compute: waited, or burnt on the node's CPU
  SparseUpdate update_;       // computed, sent when the emulated compute time is over
  uint64_t pulled_local_ = 0, pulled_remote_ = 0;  // training pulls' parameters, by shard
  struct {
    uint64_t pushes = 0, pulls = 0;  // a sparse job's messages sent dense (shorter_dense)
  } densified_;
  WorkerClockLog log_;
  // MLfabric's scheduled updates.
  bool scheduled_ = false;
  uint64_t pushes_sent_ = 0, dropped_ = 0;      // as a worker
  std::map<uint64_t, SparseUpdate> held_;       // announced, by clock: the scheduler's word awaited
  std::map<uint64_t, uint64_t> held_versions_;  // the model version each was computed from
  std::unique_ptr<UpdateSums> sums_;            // as an aggregator (every worker's node)
  OrderedPushes<Received> ordered_;             // as a server
  uint64_t ordered_messages_ = 0, ordered_bytes_ = 0;  // what reached the server, applied
  // MLfabric's replica (Sec. 5.3).
  int replica_ = -1;                              // its node; -1: none
  std::map<uint64_t, SparseUpdate> for_replica_;  // as a worker: sent to the server, by place
  std::set<uint64_t> replicated_early_;           // replicated before the word to send came
  std::unique_ptr<UpdateSums> replica_sums_;      // as the replica's aggregator
  uint64_t replicated_ = 0;
  std::vector<std::pair<uint64_t, int64_t>> apply_log_;  // as server or replica: (applied, ns)
  std::vector<int64_t> clock_applied_ns_;                // as a synchronous server: per clock
  // MLfabric's failover: the dead server's node, the first place of the new order, and
  // what was dropped as from before it (messages of the dead order, the dead server's).
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
  nlohmann::json checkpoint_loaded_;  // as the promoted standby: what it loaded
  // MLfabric-S's distribution. The server holds a planned clock's answers until its plan
  // has come: the controller sends it before the clock's last update, but the agent may
  // read that update first.
  bool distribution_ = false;
  std::map<uint64_t, DistributionOrder> distribute_;  // as the server: by clock
  std::map<uint64_t, std::vector<PullReply>> awaiting_plan_;
  std::multimap<Clock::time_point, PacedSend> paced_;  // the server's planned sends
  std::map<uint64_t, std::vector<int>> forward_to_;    // as a distributor: by clock
  std::map<uint64_t, Received> held_models_;           // as a distributor: came before the word
  uint64_t to_distributors_ = 0, answered_directly_ = 0, forwarded_ = 0, kept_ = 0;
  std::map<uint64_t, std::vector<uint64_t>> forward_clocks_;  // as a distributor: per batch
  // MLfabric-A: the server holds dense pulls for the batching interval, names the batch to
  // the controller, and answers the batch with one version once its plan comes.
  std::chrono::milliseconds pull_batch_interval_{0};  // 0: no batches (MLfabric-S, others)
  std::vector<std::pair<int, uint64_t>> pull_batch_;  // (worker's node, its pull's clock)
  Clock::time_point pull_batch_due_;
  std::map<uint64_t, std::vector<std::pair<int, uint64_t>>> pull_batches_;  // named, unplanned
  uint64_t next_pull_batch_ = 0;
  // WSP: the master's node, its selector (on that node), and as a worker when the
  // iteration under way began (its parameters arrived).
  int wsp_master_ = -1;
  std::unique_ptr<WspSelector> wsp_;
  Clock::time_point iteration_start_;
};

}  // namespace testbed
