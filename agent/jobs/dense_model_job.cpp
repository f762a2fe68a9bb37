// `dense`: a model of a given size whose every key each worker updates every clock, the
// traffic of data-parallel training of a dense network (APSP's ResNets, AlexNet, VGG) with
// a cheap computation behind it. Each worker pulls on its parameters towards its own
// seeded targets (a least-squares problem per worker); the sum of the updates is one
// gradient step on the mean of the workers' losses, whose optimum is the mean target.
// The held-out loss is the mean squared distance to the workers' mean target, what a
// model synchronized too rarely or wrongly would not approach.
#include <stdexcept>

#include "agent/jobs/job_factories.h"
#include "agent/jobs/seeded.h"

namespace testbed {
namespace {

// One gradient step of this size halves the distance to the optimum per clock: a loss
// curve that moves visibly over the few iterations a placement experiment runs.
constexpr float kStep = 0.5f;
// The held-out loss reads every 64th key: a sample of thousands of keys estimates the mean
// well, and evaluating stays far cheaper than the transfer it sits between.
constexpr size_t kEvalStride = 64;

class DenseModelJob : public Job {
 public:
  DenseModelJob(const JobConfig& c, int worker)
      : seed_(c.seed), workers_(c.workers), parameters_(c.parameters) {
    if (parameters_ == 0) throw std::invalid_argument("the dense job needs a model size");
    // Drawn once: an update per clock then costs a subtraction per key.
    own_.resize(parameters_);
    for (size_t k = 0; k < parameters_; ++k) own_[k] = target(worker, k);
    for (size_t k = 0; k < parameters_; k += kEvalStride) {
      double mean = 0;
      for (int v = 0; v < workers_; ++v) mean += target(v, k);
      optimum_.push_back(static_cast<float>(mean / workers_));
    }
  }
  size_t parameters() const override { return parameters_; }
  float initial_value(uint32_t) const override { return 0.0f; }
  std::vector<uint32_t> keys_for(uint64_t) const override { return {}; }
  std::vector<uint32_t> eval_keys() const override { return {}; }

  SparseUpdate update(uint64_t, const std::vector<float>& w) override {
    SparseUpdate u;
    u.values.resize(parameters_);
    const float share = kStep / static_cast<float>(workers_);
    for (size_t k = 0; k < parameters_; ++k) u.values[k] = share * (own_[k] - w[k]);
    return u;
  }

  double held_out_loss(const std::vector<float>& w) const override {
    double sum = 0;
    for (size_t i = 0; i < optimum_.size(); ++i) {
      const double d = w[i * kEvalStride] - optimum_[i];
      sum += d * d;
    }
    return sum / static_cast<double>(optimum_.size());
  }

  size_t samples_per_update() const override { return 1; }

 private:
  float target(int worker, size_t key) const {
    return static_cast<float>(hashed_normal(seed_, static_cast<uint64_t>(worker), key));
  }
  uint64_t seed_;
  int workers_;
  size_t parameters_;
  std::vector<float> own_;      // this worker's targets
  std::vector<float> optimum_;  // the mean target of every kEvalStride-th key
};

}  // namespace

std::unique_ptr<Job> make_dense_job(const JobConfig& config, int worker) {
  return std::make_unique<DenseModelJob>(config, worker);
}

}  // namespace testbed
