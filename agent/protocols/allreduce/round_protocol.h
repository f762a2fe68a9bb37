// Synchronous training by all-reduce, the core every such system shares: each worker holds
// the whole model, runs clocks of emulated compute, and all-reduces what its system says
// (round_hooks.h) over the van (reduce_channel.h: ring or tree), with no server. A node
// that is no worker only relays.
//
// Commands and events are the parameter server's (ps_protocol.h), so the controller runs
// it as one of its strategies:
//   setup {protocol, algorithm: ring|tree, job, workers: [nodes], iterations, compute,
//          seed, eval_interval_ms, [slow], [policy: the system's own]}  -> ready
//   start / stop / evaluate / stats, with clock, eval and finished events as the workers go.
// A clock starts once every reduction due before it is applied; a reduction that overlaps
// clocks goes on over the van while they compute.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "agent/jobs/compute_time.h"
#include "agent/jobs/emulated_compute.h"
#include "agent/jobs/job.h"
#include "agent/protocols/allreduce/elastic_reduce.h"
#include "agent/protocols/allreduce/reduce_channel.h"
#include "agent/protocols/allreduce/round_hooks.h"
#include "agent/protocols/worker_clock_log.h"
#include "agent/runtime/protocol.h"

namespace testbed {

class RoundProtocol : public Protocol {
 public:
  RoundProtocol(AgentLink& link, std::unique_ptr<RoundHooks> hooks, std::string name)
      : link_(link),
        self_(link.self()),
        hooks_(std::move(hooks)),
        name_(std::move(name)),
        log_(link) {}
  void setup(const nlohmann::json& cmd) override;
  void command(const std::string& verb, const nlohmann::json& cmd) override;
  void message(Received r) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;

 private:
  using Clock = std::chrono::steady_clock;
  // Applies a reduction due now (or waits for it), evaluates when due, then computes.
  void start_clock();
  void finish();
  // An elastic run's commands (elastic_messages.h); false for another verb.
  bool elastic_command(const std::string& verb, const nlohmann::json& cmd);
  // A joiner's model from a member (kModelChunk): taken when away, dropped otherwise.
  void take_model(Received r);
  // A donor's send of the shared model (and its optimizer state) to joiner `to`, starting
  // it at this worker's clock.
  void send_model(int to);
  const std::vector<float>& reduction_sum() const {
    return elastic_ ? elastic_->sum() : channel_->sum();
  }

  AgentLink& link_;
  int self_;
  std::unique_ptr<RoundHooks> hooks_;
  std::string name_;  // the protocol's, for errors
  std::vector<int> workers_;
  int rank_ = -1;  // -1: no worker
  std::unique_ptr<Job> job_;
  std::unique_ptr<ReduceChannel> channel_;  // the workers' all-reduce over the van
  std::unique_ptr<ElasticReduce> elastic_;  // instead, when membership changes
  size_t nodes_ = 0;
  int iterations_ = 0;
  ComputeRange compute_;
  Stragglers stragglers_;
  double slowdown_ = 1.0;
  uint64_t seed_ = 0;
  std::chrono::milliseconds eval_interval_{1000};

  // kAway: an elastic run's worker outside it until a member sends it the model.
  enum class Phase { kIdle, kAway, kComputing, kWaiting, kFinished } phase_ = Phase::kIdle;
  uint64_t clock_ = 0;
  uint64_t reductions_ = 0;  // begun so far: the next one's round on the wire
  // The reduction under way or not yet applied: the clock it must be applied before, and
  // whether its sum is complete.
  struct Pending {
    uint64_t apply_before = 0;
    bool done = false;
  };
  std::optional<Pending> pending_;
  // Joiners whose model waits for a committed sum to be applied: an overlapping round
  // (Streaming DiLoCo's) commits tau clocks before its outer step, and a joiner must get
  // the model with that step in, or it would miss it for good.
  std::vector<int> deferred_sends_;
  Clock::time_point next_eval_;
  EmulatedCompute emulated_;  // the clock's compute: waited, or burnt on the node's CPU
  bool stop_requested_ = false;
  WorkerClockLog log_;
};

}  // namespace testbed
