// RR-Sync (MLfabric's baseline): synchronous data-parallel training by ring all-reduce
// (ring_allreduce.h). Every worker holds the whole model; each clock it computes its
// update, the ring sums the workers' updates, and every worker applies the sum, so the
// model is BSP's, on every worker, with no server. A node that is no worker only relays.
//
// Commands and events are the parameter server's (ps_protocol.h), so the controller runs
// it as one of its strategies:
//   setup {protocol: ring, endpoints, job, workers: [nodes], iterations, compute, seed,
//          eval_interval_ms, [slow]}                                   -> ready
//   start / stop / evaluate / stats, with clock, eval and finished events as the workers go.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include "compute_time.h"
#include "job.h"
#include "protocol.h"
#include "ring_allreduce.h"
#include "worker_clock_log.h"

namespace testbed {

class RingProtocol : public Protocol {
 public:
  explicit RingProtocol(AgentLink& link) : link_(link), self_(link.self()), log_(link) {}
  void setup(const nlohmann::json& cmd) override;
  void command(const std::string& verb, const nlohmann::json& cmd) override;
  void message(Received r) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;

 private:
  using Clock = std::chrono::steady_clock;
  void start_clock();                           // evaluate when due, then compute
  void send_step();                             // this step's segment to the next worker
  void take(const std::vector<float>& values);  // the previous worker's segment of this step
  void take_early();
  void clock_done();
  void finish();

  AgentLink& link_;
  int self_;
  std::vector<int> workers_;
  int rank_ = -1;  // -1: no worker
  std::unique_ptr<Job> job_;
  std::optional<RingAllReduce> ring_;
  int iterations_ = 0;
  ComputeRange compute_;
  Stragglers stragglers_;
  double slowdown_ = 1.0;
  uint64_t seed_ = 0;
  std::chrono::milliseconds eval_interval_{1000};

  enum class Phase { kIdle, kComputing, kReducing, kFinished } phase_ = Phase::kIdle;
  uint64_t clock_ = 0;
  int step_ = 0;
  std::vector<float> w_;  // this worker's copy of the model
  std::vector<float> update_;
  std::map<std::pair<uint64_t, int>, std::vector<float>> early_;  // (clock, step) received ahead
  Clock::time_point compute_end_, next_eval_;
  bool stop_requested_ = false;
  WorkerClockLog log_;
};

}  // namespace testbed
