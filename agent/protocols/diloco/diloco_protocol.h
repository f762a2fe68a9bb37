// DiLoCo between data centers (Douillard et al., 2023): each data center's worker trains
// its own copy of the model for H inner steps on its own data (inner_optimizer.h), then
// the data centers all-reduce their pseudo-gradients and every one applies the same outer
// step (outer_optimizer.h), so they start the next round from one shared model. The WAN
// carries one model's all-reduce per H clocks instead of one per clock.
//
// Commands and events are the parameter server's (ps_protocol.h), as the all-reduces'
// are: the controller runs it as one of its strategies with no code of its own.
//   setup {protocol: diloco, algorithm: ring|tree, policy: DilocoPolicy, job, workers,
//          iterations, compute, seed, eval_interval_ms, [slow]}        -> ready
//   start / stop / evaluate / stats, with clock, eval and finished events as the workers go.
// A clock is one inner step. The held-out loss is the shared model's (what the paper
// evaluates), so it changes once a round. The last round ends with the run (it may be
// shorter than H), so the final model is a shared one.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "agent/jobs/compute_time.h"
#include "agent/jobs/emulated_compute.h"
#include "agent/jobs/job.h"
#include "agent/protocols/allreduce/reduce_channel.h"
#include "agent/protocols/diloco/diloco_policy.h"
#include "agent/protocols/diloco/inner_optimizer.h"
#include "agent/protocols/diloco/outer_optimizer.h"
#include "agent/protocols/worker_clock_log.h"
#include "agent/runtime/protocol.h"

namespace testbed {

class DilocoProtocol : public Protocol {
 public:
  explicit DilocoProtocol(AgentLink& link) : link_(link), self_(link.self()), log_(link) {}
  void setup(const nlohmann::json& cmd) override;
  void command(const std::string& verb, const nlohmann::json& cmd) override;
  void message(Received r) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;

 private:
  using Clock = std::chrono::steady_clock;
  void start_clock();  // evaluate when due, then compute one inner step
  void round_done();
  void finish();

  AgentLink& link_;
  int self_;
  DilocoPolicy policy_;
  std::string algorithm_;
  std::vector<int> workers_;
  int rank_ = -1;  // -1: no worker (a relay)
  std::unique_ptr<Job> job_;
  std::unique_ptr<ReduceChannel> channel_;  // the pseudo-gradients' all-reduce
  std::unique_ptr<InnerOptimizer> inner_;
  std::unique_ptr<NesterovOuter> outer_;
  int iterations_ = 0;
  ComputeRange compute_;
  Stragglers stragglers_;
  double slowdown_ = 1.0;
  uint64_t seed_ = 0;
  std::chrono::milliseconds eval_interval_{1000};

  enum class Phase { kIdle, kComputing, kReducing, kFinished } phase_ = Phase::kIdle;
  uint64_t clock_ = 0;  // inner steps taken
  uint64_t round_ = 0;  // outer steps taken
  int steps_in_round_ = 0;
  std::vector<float> theta_;  // the shared model, as of the last outer step
  std::vector<float> local_;  // this data center's copy, trained by the inner steps
  Clock::time_point next_eval_;
  EmulatedCompute emulated_;
  bool stop_requested_ = false;
  WorkerClockLog log_;
};

}  // namespace testbed
