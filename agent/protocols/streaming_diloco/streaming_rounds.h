// Streaming DiLoCo (Douillard et al., 2025, arXiv 2501.18512), as the round core's hooks
// (allreduce/round_hooks.h). DiLoCo's inner and outer steps (diloco/), with the paper's
// three changes:
//   - streaming: the model is cut into P fragments, each synchronized every H inner steps
//     on a staggered schedule (fragment_schedule.h), so each sync moves 1/P of the model;
//   - overlap: a fragment's all-reduce runs over the next tau inner steps, and its outer
//     step is applied after them; the fragment's local copy, trained on meanwhile, is then
//     mixed with the shared one (alpha: streaming_policy.h);
//   - quantization: the pseudo-gradients go on the wire in fp32, bf16 or 4-bit floats
//     (agent/transport/value_codec.h) and are summed in fp32.
// The held-out loss is the shared model's, every fragment as of its last outer step. The
// run ends with a fragment's reduction under way applied, but no extra sync.
#pragma once

#include <memory>
#include <optional>

#include "agent/protocols/allreduce/round_hooks.h"
#include "agent/protocols/diloco/inner_optimizer.h"
#include "agent/protocols/diloco/outer_optimizer.h"
#include "agent/protocols/streaming_diloco/fragment_schedule.h"
#include "agent/protocols/streaming_diloco/streaming_policy.h"

namespace testbed {

class StreamingRounds : public RoundHooks {
 public:
  void configure(const TrainingSetup& setup) override;
  const ValueCodec* encoding() const override { return find_value_codec(policy_.diloco.wire); }
  void start(std::vector<float> initial, int workers) override;
  const std::vector<float>& working() const override { return local_; }
  void step(uint64_t clock, const SparseUpdate& update) override;
  std::optional<Reduction> after_compute(uint64_t clock, bool last) override;
  void reduced(const std::vector<float>& sum) override;
  const std::vector<float>& evaluated() const override { return theta_; }
  void report(nlohmann::json& stats, uint64_t dropped) const override;
  // Elastic membership (INTELLECT-1's, built for DiLoCo, docs/diloco.md): a fragment's
  // round reforms over who is in; a joiner takes the shared model and every fragment's
  // momentum once the fragment in flight at its commit is applied (the core defers the
  // send), and starts its local copy from the shared model, as a DiLoCo joiner does.
  bool elastic() const override { return policy_.diloco.elastic; }
  void members_changed(int workers) override { workers_ = workers; }
  bool away(int node) const override;
  std::vector<float> shared_state() const override;
  void adopt(const std::vector<float>& state) override;

 private:
  // Whether a fragment is due after some inner step in (`step`, the run's last].
  bool sync_after(uint64_t step) const;

  StreamingPolicy policy_;
  std::optional<FragmentSchedule> schedule_;
  int workers_ = 1;
  uint64_t iterations_ = 0;  // the run's inner steps: its last sync is its last round
  std::unique_ptr<InnerOptimizer> inner_;
  std::vector<NesterovOuter> outer_;  // one per fragment: its own momentum
  std::optional<int> in_flight_;      // the fragment whose reduction is under way
  uint64_t outer_steps_ = 0;          // fragments' outer steps taken
  std::vector<float> theta_;          // the shared model: each fragment at its last sync
  std::vector<float> local_;          // this data center's copy, trained by the inner steps
};

}  // namespace testbed
