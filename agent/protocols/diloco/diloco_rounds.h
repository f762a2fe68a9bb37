// DiLoCo between data centers (Douillard et al., 2023), as the round core's hooks
// (allreduce/round_hooks.h): each data center's worker trains its own copy of the model
// for H inner steps on its own data (inner_optimizer.h), then the data centers all-reduce
// their pseudo-gradients and every one applies the same outer step (outer_optimizer.h),
// so they start the next round from one shared model. The WAN carries one model's
// all-reduce per H clocks instead of one per clock.
//
// A clock is one inner step. The held-out loss is the shared model's (what the paper
// evaluates), so it changes once a round. The last round ends with the run (it may be
// shorter than H), so the final model is a shared one.
#pragma once

#include <memory>

#include "agent/protocols/allreduce/round_hooks.h"
#include "agent/protocols/diloco/diloco_policy.h"
#include "agent/protocols/diloco/inner_optimizer.h"
#include "agent/protocols/diloco/outer_optimizer.h"

namespace testbed {

class DilocoRounds : public RoundHooks {
 public:
  void configure(const TrainingSetup& setup) override;
  void start(std::vector<float> initial, int workers) override;
  const std::vector<float>& working() const override { return local_; }
  const ValueCodec* encoding() const override { return find_value_codec(policy_.wire); }
  void step(uint64_t clock, const SparseUpdate& update) override;
  std::optional<Reduction> after_compute(uint64_t clock, bool last) override;
  void reduced(const std::vector<float>& sum) override;
  const std::vector<float>& evaluated() const override { return theta_; }
  void report(nlohmann::json& stats, uint64_t dropped) const override;
  bool elastic() const override { return policy_.elastic; }
  void members_changed(int workers) override { workers_ = workers; }
  bool away(int node) const override;
  std::vector<float> shared_state() const override;
  void adopt(const std::vector<float>& state) override;

 private:
  DilocoPolicy policy_;
  int workers_ = 1;
  std::unique_ptr<InnerOptimizer> inner_;
  std::unique_ptr<NesterovOuter> outer_;
  uint64_t round_ = 0;  // outer steps taken
  int steps_in_round_ = 0;
  std::vector<float> theta_;  // the shared model, as of the last outer step
  std::vector<float> local_;  // this data center's copy, trained by the inner steps
};

}  // namespace testbed
