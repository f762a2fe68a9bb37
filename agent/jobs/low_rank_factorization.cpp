// Low-rank matrix factorization as DRPS runs it (Sec. 7, LMF): both factor matrices are
// the model on the servers. Table 1 says so: its model sizes are (rows + columns) x r
// floats on the key-value store (MovieLens: (0.26 M + 0.16 M) x 2000 = 0.84 G parameters
// in 7.8 GB), where Gaia's and Bösen's MF (the `mf` job) keeps the user factors on the
// workers. A mini-batch of ratings reads and writes only the rows of its users and items,
// so a clock touches a small part of a model that does not fit the server's memory: the
// case a disk-resident server exists for. `mf` reads nearly its whole item matrix every
// clock instead (its Zipf items are in almost every batch).
//
// The data is shaped like MovieLens, the paper's real LMF dataset: users and items both
// Zipf (ZipfLaw), the most active user and the most rated movie about 200x the mean in
// MovieLens 25M (32,202 ratings against 154; 81,491 against 401). A rating is the dot
// product of the rows of a true rank-16 model plus noise. Users are dealt to the workers
// by a seeded hash (a worker's data is its users' ratings), so a user's row is read by one
// worker and an item's by any: the proximity the partition (Sec. 5) can use. The paper's
// other LMF dataset, Matrix, is uniform; we measured a uniform one of this size (below)
// and its rows are visited too seldom in a run of minutes for its loss to move.
//
// As in the paper's MovieLens at r = 2000, the model has more parameters than there are
// ratings, so the figure is the objective being minimized (the paper's Fig. 9 plots the
// loss function during training): the RMSE over a fixed sample of the worker's training
// ratings. On held-out ratings such a model barely generalizes.
//
// Sizes at scale 1: rank 16, 16,384 items and 49,152 users: 65,536 rows of 16, 2^20
// parameters (4 MiB, as sparse-lr x1). 150,000 ratings over all workers, batches of 500
// per worker (about 15,000 keys, as sparse-lr's), so that 5 workers make a pass in 60
// clocks. The scale multiplies all of them but the rank. Measured with the single-process
// reference over 5 workers: the objective falls from 1.09 to 0.91 in 30 clocks and to 0.38
// in 240. What we measured before choosing so (40 clocks, 5 workers): uniform ratings, 20
// a user, batches of 1,000, held-out RMSE 1.09 to 1.08; the same with Zipf ratings, 1.10
// to 1.06 (and worse after 150 clocks: overfitting).
#include <cmath>
#include <stdexcept>

#include "agent/jobs/factor_rows.h"
#include "agent/jobs/job_factories.h"
#include "agent/jobs/seeded.h"
#include "agent/jobs/sorted_keys.h"
#include "agent/jobs/zipf_law.h"

namespace testbed {
namespace {

constexpr int kRank = 16;
constexpr double kTopOverMean = 200;
constexpr uint64_t kObjectiveSample = 500;  // ratings per worker
constexpr double kNoise = 0.1;              // std of the ratings' noise: the RMSE no model beats
// The true rows' entries have std rank^-1/4, so a rating has variance about 1.
const double kTruthStd = std::pow(kRank, -0.25);
// The starting rows' entries: predictions of variance 16 x 0.35^4 = 0.24, away from the
// saddle at zero (where every gradient vanishes) without starting far from the ratings.
constexpr double kInitStd = 0.35;
// Per rating, both rows take this step. A row's squared norm is about rank x 0.35^2 = 2,
// so a step moves a prediction a fifth of the way to its rating (0.1 x 2), and two rows
// move. The most rated item is in about 6 of a worker's 500 ratings a batch, so the
// workers' moves of the head items add up; measured with the reference run over 5
// workers, 0.1 is stable for 240 clocks (above), and 0.2 diverged by clock 50 with batches
// of 1,000. `mf` divides the item step by W instead, where every item is in every batch;
// here that would slow the tail, most of the model, W-fold.
constexpr float kStep = 0.1f;
constexpr float kLambda = 0.01f;  // L2 regularization, per rating

struct Rating {
  uint32_t user, item;
  float value;
};

int scaled(double base, double scale, int floor) {
  return std::max(floor, static_cast<int>(std::lround(base * scale)));
}

class LmfJob : public Job {
 public:
  LmfJob(const JobConfig& c, int worker)
      : seed_(c.seed),
        items_(scaled(16384, c.scale, 64)),
        users_(scaled(49152, c.scale, 64)),
        ratings_(scaled(150000, c.scale, 1000)),
        batch_(static_cast<size_t>(scaled(500, c.scale, 10))),
        items_law_(items_, kTopOverMean, seed_, 0x6974656d73ULL),
        users_law_(users_, kTopOverMean, seed_, 0x7573657273ULL) {
    generate(worker, c.workers);
    if (train_.empty()) throw std::invalid_argument("lmf: a worker has no users at this scale");
    for (const auto& r : sample_) append_rows(r, eval_keys_);
    sort_unique(eval_keys_);
  }

  size_t parameters() const override { return static_cast<size_t>(items_ + users_) * kRank; }
  float initial_value(uint32_t key) const override {
    return static_cast<float>(kInitStd * hashed_normal(seed_ ^ 0x6c6d66ULL, 0, key));
  }
  std::vector<uint32_t> keys_for(uint64_t clock) const override {
    std::vector<uint32_t> keys;
    keys.reserve(batch_ * 2 * kRank);
    for (size_t i = 0; i < batch_; ++i) append_rows(rating(clock, i), keys);
    sort_unique(keys);
    return keys;
  }
  std::vector<uint32_t> eval_keys() const override { return eval_keys_; }

  // Each rating a step on this worker's copy of its rows, which its later ratings see
  // (read-my-writes within a batch); the update is how far the copy moved.
  SparseUpdate update(uint64_t clock, const std::vector<float>& w) override {
    SparseUpdate u;
    u.keys = keys_for(clock);
    std::vector<float> local(u.keys.size());
    for (size_t i = 0; i < local.size(); ++i) local[i] = w[u.keys[i]];
    const auto row = [&](uint32_t first_key) {
      const auto at = std::lower_bound(u.keys.begin(), u.keys.end(), first_key);
      return &local[static_cast<size_t>(at - u.keys.begin())];
    };
    for (size_t i = 0; i < batch_; ++i) {
      const Rating& r = rating(clock, i);
      sgd_rating(r.value, row(user_key(r.user)), row(item_key(r.item)), kRank, kStep, kStep,
                 kLambda);
    }
    u.values.resize(local.size());
    for (size_t i = 0; i < local.size(); ++i) u.values[i] = local[i] - w[u.keys[i]];
    return u;
  }

  double held_out_loss(const std::vector<float>& w) const override {
    double sq = 0;
    for (const auto& r : sample_) {
      const double err = r.value - dot(&w[user_key(r.user)], &w[item_key(r.item)], kRank);
      sq += err * err;
    }
    return std::sqrt(sq / static_cast<double>(sample_.size()));
  }
  size_t samples_per_update() const override { return batch_; }

 private:
  // Item rows first, then user rows, each kRank consecutive keys.
  uint32_t item_key(uint32_t item) const { return item * kRank; }
  uint32_t user_key(uint32_t user) const { return (static_cast<uint32_t>(items_) + user) * kRank; }
  void append_rows(const Rating& r, std::vector<uint32_t>& keys) const {
    for (uint32_t k = 0; k < kRank; ++k) {
      keys.push_back(user_key(r.user) + k);
      keys.push_back(item_key(r.item) + k);
    }
  }
  // The i-th rating of the batch of `clock`: the shard's ratings in their shuffled order,
  // a batch after the other, wrapping around.
  const Rating& rating(uint64_t clock, size_t i) const {
    return train_[(clock * batch_ + i) % train_.size()];
  }

  // The ratings of all users are drawn in one seeded sequence (a user and an item from
  // their laws, a value from their true rows); a worker keeps its users' ones, in the order
  // of a seeded shuffle.
  void generate(int worker, int workers) {
    const auto truth = [&](uint64_t side, uint64_t row, int k) {
      return kTruthStd * hashed_normal(seed_ ^ 0x7472757468ULL, side, row * kRank + k);
    };
    const auto mine = [&](uint32_t user) {
      return hash3(seed_, 0x6f776e6572ULL, user) % static_cast<uint64_t>(workers) ==
             static_cast<uint64_t>(worker);
    };
    const auto draw = [&](uint64_t n) {
      const uint32_t user = users_law_.draw(hashed_uniform(hash3(seed_ ^ 0x75736572ULL, 0, n)));
      const uint32_t item = items_law_.draw(hashed_uniform(hash3(seed_ ^ 0x6974656dULL, 0, n)));
      double v = kNoise * hashed_normal(seed_ ^ 0x6e6f697365ULL, 0, n);
      for (int k = 0; k < kRank; ++k) v += truth(1, user, k) * truth(2, item, k);
      return Rating{user, item, static_cast<float>(v)};
    };
    std::vector<std::pair<uint64_t, Rating>> shuffled;
    for (uint64_t n = 0; n < static_cast<uint64_t>(ratings_); ++n) {
      const Rating r = draw(n);
      if (mine(r.user)) shuffled.emplace_back(hash3(seed_ ^ 0x73687566ULL, 0, n), r);
    }
    std::sort(shuffled.begin(), shuffled.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [order, r] : shuffled) train_.push_back(r);
    if (train_.empty()) return;
    // The objective is measured on a fixed sample of the worker's own training ratings.
    for (uint64_t i = 0; i < kObjectiveSample; ++i)
      sample_.push_back(train_[hash3(seed_ ^ 0x73616d70ULL, worker, i) % train_.size()]);
  }

  uint64_t seed_;
  int items_, users_, ratings_;
  // Scaled with the data, so that a pass takes as many clocks and the head items have as
  // many ratings in a batch at every scale (the step's stability depends on it).
  size_t batch_;
  ZipfLaw items_law_, users_law_;
  std::vector<Rating> train_;   // in batch order
  std::vector<Rating> sample_;  // the objective's
  std::vector<uint32_t> eval_keys_;
};

}  // namespace

std::unique_ptr<Job> make_lmf_job(const JobConfig& config, int worker) {
  return std::make_unique<LmfJob>(config, worker);
}

}  // namespace testbed
