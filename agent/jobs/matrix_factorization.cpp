// Matrix factorization, the workload of Gaia (Sec. 5) and Bösen: a synthetic rating matrix
// of low rank plus noise, its rows (users) partitioned over the data centers. Each worker
// keeps its users' factors L to itself; the item factors R are the model on the servers.
// Full-batch gradient descent on the squared error with L2 regularization; the figure is
// the held-out RMSE.
//
// Sizes at scale 1: 300 users per worker, 1000 items, rank 10, 10% of the entries known
// (30,000 per worker) and 2% held out. R has items x rank = 10,000 parameters.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "job_factories.h"
#include "seeded.h"

namespace testbed {
namespace {

constexpr int kRank = 10;
constexpr double kTrainDensity = 0.10, kHeldOutDensity = 0.02;
constexpr double kNoise = 0.1;  // std of the ratings' noise: the RMSE no model beats
// The factors' entries have std rank^-1/4, so a rating (a sum of `rank` products) has
// variance about 1: an untrained model's RMSE is about 1.
const double kTruthStd = std::pow(kRank, -0.25);
constexpr double kInitStd = 0.5;       // a random start away from the saddle at zero
constexpr float kLearningRate = 1.0f;  // 40 clocks reach the noise floor at scale 1
constexpr float kLambda = 0.01f;       // L2 regularization

struct Entry {
  uint32_t user, item;
  float rating;
};

int scaled(double base, double scale, int floor) {
  return std::max(floor, static_cast<int>(std::lround(base * scale)));
}

class MfJob : public Job {
 public:
  MfJob(const JobConfig& c, int worker)
      : seed_(c.seed),
        workers_(c.workers),
        users_(scaled(300, c.scale, 10)),
        items_(scaled(1000, c.scale, 20)) {
    // Truth: item factors shared by all (seeded by the run), user factors per worker.
    const auto truth = [&](uint64_t stream, uint64_t index, int k) {
      return kTruthStd * hashed_normal(seed_ ^ 0x7472757468ULL, stream, index * kRank + k);
    };
    for (int u = 0; u < users_; ++u) {
      const uint64_t user = static_cast<uint64_t>(worker) * users_ + u;
      for (int i = 0; i < items_; ++i) {
        const double draw = hashed_uniform(hash3(seed_, user, static_cast<uint64_t>(i)));
        if (draw >= kTrainDensity + kHeldOutDensity) continue;
        double r = 0;
        for (int k = 0; k < kRank; ++k) r += truth(1, user, k) * truth(2, i, k);
        r += kNoise * hashed_normal(seed_ ^ 0x6e6f697365ULL, user, static_cast<uint64_t>(i));
        const Entry e{static_cast<uint32_t>(u), static_cast<uint32_t>(i), static_cast<float>(r)};
        (draw < kTrainDensity ? train_ : held_out_).push_back(e);
      }
    }
    if (train_.empty()) throw std::invalid_argument("mf: a worker has no ratings at this scale");
    per_user_.assign(static_cast<size_t>(users_), 0);
    for (const auto& e : train_) ++per_user_[e.user];
    L_.resize(static_cast<size_t>(users_) * kRank);
    for (size_t x = 0; x < L_.size(); ++x)
      L_[x] = static_cast<float>(kInitStd * hashed_normal(seed_ ^ 0x4c4cULL, worker, x));
    // Expected ratings per item over all workers: normalizes R's gradient so that its
    // step does not grow with the number of workers.
    per_item_ = static_cast<float>(kTrainDensity * users_ * workers_);
  }

  size_t parameters() const override { return static_cast<size_t>(items_) * kRank; }
  float initial_value(uint32_t key) const override {
    return static_cast<float>(kInitStd * hashed_normal(seed_ ^ 0x5252ULL, 0, key));
  }
  std::vector<uint32_t> keys_for(uint64_t) const override { return {}; }
  std::vector<uint32_t> eval_keys() const override { return {}; }

  SparseUpdate update(uint64_t, const std::vector<float>& R) override {
    std::vector<float> gL(L_.size(), 0.0f), gR(parameters(), 0.0f);
    for (const auto& e : train_) {
      const float* l = &L_[size_t{e.user} * kRank];
      const float* r = &R[size_t{e.item} * kRank];
      const float err = e.rating - dot(l, r);
      float* gl = &gL[size_t{e.user} * kRank];
      float* gr = &gR[size_t{e.item} * kRank];
      for (int k = 0; k < kRank; ++k) {
        gl[k] -= err * r[k];
        gr[k] -= err * l[k];
      }
    }
    SparseUpdate u;
    u.values.resize(parameters());
    const float workers = static_cast<float>(workers_);
    for (size_t x = 0; x < u.values.size(); ++x)
      u.values[x] = -kLearningRate * (gR[x] / per_item_ + kLambda * R[x] / workers);
    // The users' factors are this worker's alone: updated here, from the same R.
    for (size_t x = 0; x < L_.size(); ++x) {
      const float n = static_cast<float>(std::max(1, per_user_[x / kRank]));
      L_[x] -= kLearningRate * (gL[x] / n + kLambda * L_[x]);
    }
    return u;
  }

  double held_out_loss(const std::vector<float>& R) const override {
    if (held_out_.empty()) return 0;
    double sq = 0;
    for (const auto& e : held_out_) {
      const double err = e.rating - dot(&L_[size_t{e.user} * kRank], &R[size_t{e.item} * kRank]);
      sq += err * err;
    }
    return std::sqrt(sq / static_cast<double>(held_out_.size()));
  }
  size_t samples_per_update() const override { return train_.size(); }

 private:
  static float dot(const float* a, const float* b) {
    float s = 0;
    for (int k = 0; k < kRank; ++k) s += a[k] * b[k];
    return s;
  }

  uint64_t seed_;
  int workers_, users_, items_;
  std::vector<Entry> train_, held_out_;
  std::vector<int> per_user_;
  std::vector<float> L_;
  float per_item_ = 1;
};

}  // namespace

std::unique_ptr<Job> make_mf_job(const JobConfig& config, int worker) {
  return std::make_unique<MfJob>(config, worker);
}

}  // namespace testbed
