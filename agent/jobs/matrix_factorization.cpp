// Matrix factorization, the workload of Gaia (Sec. 5) and Bösen: a synthetic rating matrix
// of low rank plus noise, shaped like Netflix's, its rows (users) partitioned over the
// workers. Each worker keeps its users' factors L to itself; the item factors R are the
// model on the servers. SGD on the squared error with L2 regularization, in mini-batches;
// the figure is the held-out RMSE.
//
// Netflix-like: item popularity is heavy-tailed. Items are drawn from a Zipf law whose
// exponent gives the most-rated item 41x the mean item's ratings, as in the Netflix Prize
// data (232,944 ratings of its top movie against 100.48 M / 17,770 = 5,654 on average).
// So a few items' factors are in every mini-batch and most items' in few: the
// non-uniform convergence Gaia credits for most updates being insignificant (Sec. 3.3).
// Users rate the same number of items each (the data's user skew is not modelled: L
// never leaves its worker, so it does not shape the traffic).
//
// SGD as Bösen's MF application runs it (one of the two systems the paper measures on WANs
// in Sec. 2.3; Gaia's prototype and Baseline are built on IterStore for MF, Sec. 5): each
// rating is one step on the user's factors and the item's, and a worker's steps see its
// own earlier ones (Bösen's process cache: read-my-writes), so its update is how far its
// copy of the item factors moved over the clock's ratings.
//
// The step's schedule, by what t counts (JobConfig::t_in_passes, Gaia's --gaia-t):
//   clocks  eta0 * sqrt(100 / (100 + t)), Bösen's schedule eta * (100 + t)^-1/2 scaled to
//           start at eta0: 1/sqrt(t) in the long run, but over a short run it falls far
//           less than Gaia's threshold v / sqrt(t) (at t = 80, to 0.75 against 0.11);
//   passes  eta0 / sqrt(t), t the passes begun (1 in the first): Gaia's Sec. 3.5 pairing,
//           eta/sqrt(t) with v/sqrt(t), so the step falls as the threshold does. Bösen's
//           form with t in passes barely falls (0.96 at pass 8), and single-process BSP of
//           22 workers at scale 2 then diverges (RMSE 1.07 at clock 30, NaN by 35; 0.11 at
//           clock 80 with this form, measured).
// The clock reading with eta0 / sqrt(t) was measured too slow to compare (RMSE 0.54 after
// 80 clocks against 0.11).
//
// Sizes at scale 1: 300 users per worker, 1000 items, rank 10, 10% of the matrix known
// (100 ratings per user) and 2% held out. R has items x rank = 10,000 parameters. A clock
// is one mini-batch, a tenth of the worker's ratings; a worker reads and pushes only the
// factors of the items its batch rates.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <unordered_set>

#include "agent/jobs/factor_rows.h"
#include "agent/jobs/job_factories.h"
#include "agent/jobs/seeded.h"
#include "agent/jobs/sorted_keys.h"
#include "agent/jobs/zipf_law.h"

namespace testbed {
namespace {

constexpr int kRank = 10;
constexpr double kTrainDensity = 0.10, kHeldOutDensity = 0.02;
// The most-rated item's ratings over the mean item's, as in Netflix; ZipfLaw solves the
// exponent that gives it for the number of items (0.69 for 1000 items).
constexpr double kTopOverMean = 41.0;
constexpr int kBatches = 10;    // mini-batches per pass over a worker's ratings
constexpr double kNoise = 0.1;  // std of the ratings' noise: the RMSE no model beats
// The factors' entries have std rank^-1/4, so a rating (a sum of `rank` products) has
// variance about 1: an untrained model's RMSE is about 1.
const double kTruthStd = std::pow(kRank, -0.25);
constexpr double kInitStd = 0.5;  // a random start away from the saddle at zero
// Steps per rating. The servers add the workers' moves, and a popular item is rated in
// every worker's batch: each worker moving it the whole way toward its ratings would move
// it W times too far (measured, two data centers of two workers at scale 1: without the
// division eta0 0.1 is NaN by clock 45, and eta0 0.01 is stable but still at RMSE 1.00
// after 60 clocks). So an item's step is eta0 / W, the mean of the workers' moves; a
// user's factors are one worker's alone and take the whole step. eta0 0.1 takes about a
// tenth of the way per rating at |l|^2 ~ rank^0.5 ~ 3; with the division the same run is
// at RMSE 0.37 after 60 clocks, and at scale 2 at 0.12 (the noise floor is 0.10).
constexpr double kStep = 0.1;
constexpr float kLambda = 0.01f;      // L2 regularization, per rating
constexpr double kDecayClocks = 100;  // Bösen's schedule's offset (its MF application)

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
        t_in_passes_(c.t_in_passes),
        workers_(c.workers),
        users_(scaled(300, c.scale, 10)),
        items_(scaled(1000, c.scale, 20)),
        popularity_(items_, kTopOverMean, seed_, 0x7065726dULL) {
    generate(worker);
    if (train_.empty()) throw std::invalid_argument("mf: a worker has no ratings at this scale");
    L_.resize(static_cast<size_t>(users_) * kRank);
    for (size_t x = 0; x < L_.size(); ++x)
      L_[x] = static_cast<float>(kInitStd * hashed_normal(seed_ ^ 0x4c4cULL, worker, x));
    for (auto& b : batch_keys_) sort_unique(b);
    for (const auto& e : held_out_)
      for (int k = 0; k < kRank; ++k)
        eval_keys_.push_back(e.item * kRank + static_cast<uint32_t>(k));
    sort_unique(eval_keys_);
  }

  size_t parameters() const override { return static_cast<size_t>(items_) * kRank; }
  float initial_value(uint32_t key) const override {
    return static_cast<float>(kInitStd * hashed_normal(seed_ ^ 0x5252ULL, 0, key));
  }
  std::vector<uint32_t> keys_for(uint64_t clock) const override {
    return batch_keys_[clock % kBatches];
  }
  std::vector<uint32_t> eval_keys() const override { return eval_keys_; }

  SparseUpdate update(uint64_t clock, const std::vector<float>& R) override {
    const int b = static_cast<int>(clock % kBatches);
    const double decay =
        t_in_passes_ ? 1.0 / std::sqrt(static_cast<double>(clock / kBatches + 1))
                     : std::sqrt(kDecayClocks / (kDecayClocks + static_cast<double>(clock)));
    const auto step_r = static_cast<float>(kStep / workers_ * decay);
    const auto step_l = static_cast<float>(kStep * decay);
    SparseUpdate u;
    u.keys = batch_keys_[b];
    // This worker's copy of the rows it reads: its own updates are seen by its next
    // ratings (Bösen's process cache), and the update is what the copy moved.
    std::vector<float> local(u.keys.size());
    for (size_t i = 0; i < local.size(); ++i) local[i] = R[u.keys[i]];
    for (size_t i = batch_begin_[b]; i < batch_begin_[b + 1]; ++i) {
      const Entry& e = train_[i];
      float* l = &L_[size_t{e.user} * kRank];
      const auto at = std::lower_bound(u.keys.begin(), u.keys.end(), e.item * kRank);
      float* r = &local[static_cast<size_t>(at - u.keys.begin())];
      sgd_rating(e.rating, l, r, kRank, step_l, step_r, kLambda);
    }
    u.values.resize(local.size());
    for (size_t i = 0; i < local.size(); ++i) u.values[i] = local[i] - R[u.keys[i]];
    return u;
  }

  double held_out_loss(const std::vector<float>& R) const override {
    if (held_out_.empty()) return 0;
    double sq = 0;
    for (const auto& e : held_out_) {
      const double err =
          e.rating - dot(&L_[size_t{e.user} * kRank], &R[size_t{e.item} * kRank], kRank);
      sq += err * err;
    }
    return std::sqrt(sq / static_cast<double>(held_out_.size()));
  }
  size_t samples_per_update() const override { return train_.size() / kBatches; }
  uint64_t clocks_per_pass() const override { return kBatches; }

 private:
  static std::vector<uint32_t> keys_of(uint32_t item) {
    std::vector<uint32_t> keys(kRank);
    for (int k = 0; k < kRank; ++k) keys[k] = item * kRank + static_cast<uint32_t>(k);
    return keys;
  }

  uint32_t draw_item(uint64_t user, uint64_t n) const {
    return popularity_.draw(hashed_uniform(hash3(seed_ ^ 0x6974656dULL, user, n)));
  }

  // Each user rates distinct items drawn by popularity; the first draws are its training
  // ratings, the next its held-out ones. Ratings are dealt to mini-batches by a seeded
  // hash, so every batch has every user's share.
  void generate(int worker) {
    const auto truth = [&](uint64_t stream, uint64_t index, int k) {
      return kTruthStd * hashed_normal(seed_ ^ 0x7472757468ULL, stream, index * kRank + k);
    };
    const int train = std::max(1, static_cast<int>(std::lround(kTrainDensity * items_)));
    const int held = static_cast<int>(std::lround(kHeldOutDensity * items_));
    std::vector<std::vector<Entry>> batches(kBatches);
    for (int u = 0; u < users_; ++u) {
      const uint64_t user = static_cast<uint64_t>(worker) * users_ + u;
      std::unordered_set<uint32_t> rated;
      // Distinct items: popular ones repeat, so draw until enough (bounded: train + held
      // is 12% of the items, and the tail alone has most of the mass).
      for (uint64_t n = 0; static_cast<int>(rated.size()) < train + held; ++n) {
        const uint32_t item = draw_item(user, n);
        if (!rated.insert(item).second) continue;
        double r = 0;
        for (int k = 0; k < kRank; ++k) r += truth(1, user, k) * truth(2, item, k);
        r += kNoise * hashed_normal(seed_ ^ 0x6e6f697365ULL, user, item);
        const Entry e{static_cast<uint32_t>(u), item, static_cast<float>(r)};
        if (static_cast<int>(rated.size()) > train) {
          held_out_.push_back(e);
        } else {
          const auto b = hash3(seed_ ^ 0x6261746368ULL, user, item) % kBatches;
          batches[b].push_back(e);
        }
      }
    }
    batch_begin_.push_back(0);
    for (int b = 0; b < kBatches; ++b) {
      for (const auto& e : batches[b]) {
        train_.push_back(e);
        const auto keys = keys_of(e.item);
        batch_keys_[b].insert(batch_keys_[b].end(), keys.begin(), keys.end());
      }
      batch_begin_.push_back(train_.size());
    }
  }

  uint64_t seed_;
  bool t_in_passes_;
  int workers_, users_, items_;
  ZipfLaw popularity_;
  std::vector<Entry> train_, held_out_;  // train_ in batch order
  std::vector<size_t> batch_begin_;      // batch b is train_[batch_begin_[b], [b + 1])
  std::vector<uint32_t> batch_keys_[kBatches];
  std::vector<uint32_t> eval_keys_;
  std::vector<float> L_;
};

}  // namespace

std::unique_ptr<Job> make_mf_job(const JobConfig& config, int worker) {
  return std::make_unique<MfJob>(config, worker);
}

}  // namespace testbed
