// Logistic regression over hashed sparse features: the shape of model a disk-resident
// parameter server exists for (DRPS's LoR on CTR data). Binary features, 30 per sample,
// their ranks drawn from a power law (Zipf, exponent 1: a few features are in most
// samples, most are rare) and hashed over the whole key space, so every server shard
// sees frequent and rare keys alike. Seeded mini-batches; a worker reads and pushes only
// the keys its batch touches.
//
// Sizes at scale 1: 2^20 features, 20,000 samples per worker in batches of 500, 500
// held out per worker.
#include <algorithm>
#include <bit>
#include <cmath>

#include "agent/jobs/job_factories.h"
#include "agent/jobs/seeded.h"
#include "agent/jobs/sorted_keys.h"

namespace testbed {
namespace {

constexpr int kNonZeros = 30;
// Each present feature has the value 1/sqrt(30), so a sample's features have norm 1 and
// the step a weight takes does not grow with the number of features per sample.
const float kFeatureValue = 1.0f / std::sqrt(static_cast<float>(kNonZeros));
constexpr double kLogitScale = 2.0;     // logits of std 2: learnable, not separable
constexpr float kLearningRate = 30.0f;  // mostly rare features: large steps pay (60 diverges)
constexpr int kBatch = 500;
constexpr int kHeldOut = 500;

float sigmoid(float z) {
  return 1.0f / (1.0f + std::exp(-z));
}

class SparseLrJob : public Job {
 public:
  SparseLrJob(const JobConfig& c, int worker) : seed_(c.seed), workers_(c.workers) {
    // A power of two, so that hashing a rank is a bijection (an odd multiplier mod 2^k).
    const double log2_features = std::round(20 + std::log2(std::max(c.scale, 1e-3)));
    features_ = uint32_t{1} << static_cast<int>(std::clamp(log2_features, 10.0, 26.0));
    const int samples = std::max(kBatch, static_cast<int>(std::lround(20000 * c.scale)));
    generate(worker, 0, samples, train_x_, train_y_);
    generate(worker, 1, kHeldOut, held_x_, held_y_);
    for (uint32_t k : held_x_) eval_keys_.push_back(k);
    sort_unique(eval_keys_);
  }

  size_t parameters() const override { return features_; }
  float initial_value(uint32_t) const override { return 0.0f; }

  std::vector<uint32_t> keys_for(uint64_t clock) const override {
    std::vector<uint32_t> keys;
    for (size_t s : batch(clock))
      keys.insert(keys.end(), &train_x_[s * kNonZeros], &train_x_[(s + 1) * kNonZeros]);
    sort_unique(keys);
    return keys;
  }
  std::vector<uint32_t> eval_keys() const override { return eval_keys_; }

  SparseUpdate update(uint64_t clock, const std::vector<float>& w) override {
    SparseUpdate u;
    u.keys = keys_for(clock);
    u.values.assign(u.keys.size(), 0.0f);
    const auto b = batch(clock);
    const float factor = -kLearningRate / static_cast<float>(b.size() * workers_);
    for (size_t s : b) {
      const uint32_t* x = &train_x_[s * kNonZeros];
      const float err = sigmoid(logit(x, w)) - train_y_[s];
      for (int f = 0; f < kNonZeros; ++f) {
        const auto at = std::lower_bound(u.keys.begin(), u.keys.end(), x[f]) - u.keys.begin();
        u.values[static_cast<size_t>(at)] += factor * err * kFeatureValue;
      }
    }
    return u;
  }

  double held_out_loss(const std::vector<float>& w) const override {
    double total = 0;
    for (size_t s = 0; s < held_y_.size(); ++s) {
      const double p = sigmoid(logit(&held_x_[s * kNonZeros], w));
      total -= held_y_[s] > 0.5f ? std::log(std::max(p, 1e-12)) : std::log(std::max(1 - p, 1e-12));
    }
    return total / static_cast<double>(held_y_.size());
  }
  size_t samples_per_update() const override { return kBatch; }

 private:
  static float logit(const uint32_t* x, const std::vector<float>& w) {
    float z = 0;
    for (int f = 0; f < kNonZeros; ++f) z += w[x[f]];
    return z * kFeatureValue;
  }
  // The batch of `clock`: the next kBatch samples of the shard, wrapping around.
  std::vector<size_t> batch(uint64_t clock) const {
    const size_t n = train_y_.size();
    std::vector<size_t> out(kBatch);
    for (size_t i = 0; i < out.size(); ++i) out[i] = (clock * kBatch + i) % n;
    return out;
  }
  // Zipf with exponent 1 by inverse transform of the continuous law: rank = F^u - 1.
  uint32_t feature(uint64_t stream, uint64_t index) const {
    const double u = hashed_uniform(hash3(seed_, stream, index));
    const auto rank = static_cast<uint64_t>(std::pow(static_cast<double>(features_), u)) - 1;
    return static_cast<uint32_t>((rank * 0x9e3779b1ULL + seed_) & (features_ - 1));
  }
  void generate(int worker, int part, int samples, std::vector<uint32_t>& x,
                std::vector<float>& y) const {
    const uint64_t stream = (static_cast<uint64_t>(worker) << 1 | static_cast<uint64_t>(part));
    const double norm = kLogitScale / std::sqrt(static_cast<double>(kNonZeros));
    for (int s = 0; s < samples; ++s) {
      double z = 0;
      for (int f = 0; f < kNonZeros; ++f) {
        const uint32_t k = feature(stream, static_cast<uint64_t>(s) * kNonZeros + f);
        x.push_back(k);
        z += norm * hashed_normal(seed_ ^ 0x7765696768ULL, 0, k);  // the true weight of k
      }
      const double p = 1 / (1 + std::exp(-z));
      y.push_back(hashed_uniform(hash3(seed_ ^ 0x6c6162656cULL, stream, s)) < p ? 1.0f : 0.0f);
    }
  }

  uint64_t seed_;
  int workers_;
  uint32_t features_ = 0;
  std::vector<uint32_t> train_x_, held_x_, eval_keys_;
  std::vector<float> train_y_, held_y_;
};

}  // namespace

std::unique_ptr<Job> make_sparse_lr_job(const JobConfig& config, int worker) {
  return std::make_unique<SparseLrJob>(config, worker);
}

}  // namespace testbed
