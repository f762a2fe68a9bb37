// Synchronous training by all-reduce (MLfabric's baselines RR-Sync and Tr-Sync): every
// worker holds the whole model; each clock it computes its update, the workers' all-reduce
// (all_reduce.h: ring or tree) sums their updates, and every worker applies the sum, so
// the model is BSP's, on every worker, with no server. A node that is no worker only relays.
//
// Commands and events are the parameter server's (ps_protocol.h), so the controller runs
// it as one of its strategies:
//   setup {protocol: allreduce, algorithm: ring|tree, endpoints, job, workers: [nodes],
//          iterations, compute, seed, eval_interval_ms, [slow]}        -> ready
//   start / stop / evaluate / stats, with clock, eval and finished events as the workers go.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "agent/jobs/compute_time.h"
#include "agent/jobs/emulated_compute.h"
#include "agent/jobs/job.h"
#include "agent/protocols/allreduce/reduce_channel.h"
#include "agent/protocols/worker_clock_log.h"
#include "agent/runtime/protocol.h"

namespace testbed {

class AllReduceProtocol : public Protocol {
 public:
  explicit AllReduceProtocol(AgentLink& link) : link_(link), self_(link.self()), log_(link) {}
  void setup(const nlohmann::json& cmd) override;
  void command(const std::string& verb, const nlohmann::json& cmd) override;
  void message(Received r) override;
  void tick() override;
  std::chrono::milliseconds timeout() const override;

 private:
  using Clock = std::chrono::steady_clock;
  void start_clock();  // evaluate when due, then compute
  void clock_done();
  void finish();

  AgentLink& link_;
  int self_;
  std::string algorithm_;
  std::vector<int> workers_;
  int rank_ = -1;  // -1: no worker
  std::unique_ptr<Job> job_;
  std::unique_ptr<ReduceChannel> channel_;  // the workers' all-reduce over the van
  int iterations_ = 0;
  ComputeRange compute_;
  Stragglers stragglers_;
  double slowdown_ = 1.0;
  uint64_t seed_ = 0;
  std::chrono::milliseconds eval_interval_{1000};

  enum class Phase { kIdle, kComputing, kReducing, kFinished } phase_ = Phase::kIdle;
  uint64_t clock_ = 0;
  std::vector<float> w_;  // this worker's copy of the model
  std::vector<float> update_;
  Clock::time_point next_eval_;
  EmulatedCompute emulated_;  // the clock's compute: waited, or burnt on the node's CPU
  bool stop_requested_ = false;
  WorkerClockLog log_;
};

}  // namespace testbed
