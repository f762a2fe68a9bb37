// The parameter server: on every node, a worker (its own loop of pull, compute, push) and,
// on the nodes the controller names, a server shard (server_shard.h) holding a range of
// the model's keys. Workers push to and pull from every shard over the van, across the
// emulated links; the kernel's routes carry a message through the nodes between, unless
// a policy gives source routes (APSP's paths; transport/routed_transfer.h).
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
// A system's own part of the server is a policy (ps_policy.h), made by the registry when
// the setup asks for it, with its own commands and messages: MLfabric's scheduled updates,
// replica, failover and model distribution (mlfabric/mlfabric_policy.h), DRPS's WSP master
// and shards on disk (drps/), APSP's source routes (apsp/). The core names none of them.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/compute_time.h"
#include "agent/jobs/emulated_compute.h"
#include "agent/jobs/job.h"
#include "agent/protocols/ps/consistency.h"
#include "agent/protocols/ps/key_map.h"
#include "agent/protocols/ps/ps_policy.h"
#include "agent/protocols/ps/server_shard.h"
#include "agent/protocols/worker_clock_log.h"
#include "agent/runtime/protocol.h"
#include "agent/transport/routed_transfer.h"
#include "agent/transport/wire.h"

namespace testbed {

class PsProtocol : public Protocol, private PsCore {
 public:
  // `policies`: every policy the registry knows; each is made if the setup asks for it.
  PsProtocol(AgentLink& link, std::vector<PsPolicyMaker> policies)
      : link_(link), self_(link.self()), makers_(std::move(policies)), log_(link) {}
  void setup(const nlohmann::json& cmd) override;
  void command(const std::string& verb, const nlohmann::json& cmd) override;
  void message(Received r) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;

 private:
  using Clock = std::chrono::steady_clock;
  // What the policies see of the core (ps_policy.h).
  int self() const override { return self_; }
  const std::vector<int>& workers() const override { return workers_; }
  const std::vector<int>& servers() const override { return servers_; }
  int worker_index(int node) const override;
  const Consistency& consistency() const override { return model_; }
  const KeyMap& keys() const override { return keys_; }
  float initial_value(uint32_t job_key) const override { return job_->initial_value(job_key); }
  ServerShard* shard() override { return shard_.get(); }
  int shard_index() const override { return my_shard_; }
  int checked_sender(const WireHeader& h) const override;
  uint64_t read_version() const override;
  RoutedTransfer& transfer() override { return *transfer_; }
  void send_replies(const std::vector<PullReply>& replies) override;
  void reply(const nlohmann::json& event) override { link_.reply(event); }
  void deliver_params(const Received& r) override { on_params(r); }
  void count_densified_push() override { ++densified_.pushes; }
  void set_servers(std::vector<int> servers) override { servers_ = std::move(servers); }
  void replace_shard(std::unique_ptr<ServerShard> shard) override { shard_ = std::move(shard); }
  bool ask_again() override;
  void resume_pulls() override;
  bool held(uint64_t clock);  // a policy holds the worker's pull for `clock`
  // Worker side.
  void request(uint64_t clock, bool latest);
  void on_params(const Received& r);
  void params_complete();
  void push_update();
  void next_clock();  // pulls for the next clock, unless stopped
  void apply_push(Received& r);
  void finish();
  void count_pulled(const std::vector<uint32_t>& keys);
  nlohmann::json stats() const;

  AgentLink& link_;
  int self_;
  std::vector<PsPolicyMaker> makers_;
  std::vector<std::unique_ptr<PsPolicy>> policies_;  // those this run's setup asked for
  std::unique_ptr<RoutedTransfer> transfer_;         // every key-value message goes through it
  Consistency model_;
  std::vector<int> workers_, servers_;  // node of each worker, of each shard
  KeyMap keys_{0, 1};  // which shard holds each key, under which key (DRPS's partition)
  std::unique_ptr<ServerShard> shard_;  // when this node hosts one
  int my_shard_ = -1;

  std::unique_ptr<Job> job_;  // when this node is a worker
  int iterations_ = 0;
  ComputeRange compute_;
  int per_node_ = 1;       // workers this node's worker stands for
  double slowdown_ = 1.0;  // this node's compute time factor (a slow data center)
  Stragglers stragglers_;  // MLfabric's compute settings: a worker slowed now and then
  uint64_t seed_ = 0;
  std::chrono::milliseconds eval_interval_{1000};

  // kHeld: a policy holds the next pull (an elastic worker outside).
  enum class Phase {
    kIdle,
    kWaiting,
    kComputing,
    kHeld,
    kFinished,
    kEvaluating
  } phase_ = Phase::kIdle;
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
};

}  // namespace testbed
