// Synchronous training by all-reduce (MLfabric's baselines RR-Sync and Tr-Sync), as the
// round core's hooks (round_hooks.h): each clock every worker's update is all-reduced and
// the sum applied before the next clock, so the model is BSP's, on every worker.
#pragma once

#include "agent/protocols/allreduce/round_hooks.h"

namespace testbed {

class SumEachClock : public RoundHooks {
 public:
  void configure(const TrainingSetup&) override {}
  void start(std::vector<float> initial, int) override { w_ = std::move(initial); }
  const std::vector<float>& working() const override { return w_; }
  void step(uint64_t clock, const SparseUpdate& update) override;
  std::optional<Reduction> after_compute(uint64_t clock, bool last) override;
  void reduced(const std::vector<float>& sum) override;
  const std::vector<float>& evaluated() const override { return w_; }
  void report(nlohmann::json&, uint64_t) const override {}

 private:
  std::vector<float> w_;  // this worker's copy of the model
  std::vector<float> update_;
};

}  // namespace testbed
