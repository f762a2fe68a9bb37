#include "agent/jobs/local_workers.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

namespace testbed {
namespace {

// The union of the workers' key lists; an empty list (every key) absorbs the rest.
std::vector<uint32_t> united(const std::vector<std::vector<uint32_t>>& lists) {
  std::vector<uint32_t> out;
  for (const auto& l : lists) {
    if (l.empty()) return {};
    std::vector<uint32_t> next;
    std::set_union(out.begin(), out.end(), l.begin(), l.end(), std::back_inserter(next));
    out.swap(next);
  }
  return out;
}

class LocalWorkers : public Job {
 public:
  LocalWorkers(std::vector<std::unique_ptr<Job>> jobs, WorkerUpdateObserver observe)
      : jobs_(std::move(jobs)), observe_(std::move(observe)) {}

  size_t parameters() const override { return jobs_.front()->parameters(); }
  float initial_value(uint32_t key) const override { return jobs_.front()->initial_value(key); }
  std::vector<uint32_t> keys_for(uint64_t clock) const override {
    std::vector<std::vector<uint32_t>> lists;
    for (const auto& j : jobs_) lists.push_back(j->keys_for(clock));
    return united(lists);
  }
  std::vector<uint32_t> eval_keys() const override {
    std::vector<std::vector<uint32_t>> lists;
    for (const auto& j : jobs_) lists.push_back(j->eval_keys());
    return united(lists);
  }

  // Every worker computes from the same `w`; the updates are summed in double precision,
  // as the servers and the reference sum them, and sent dense when any one is.
  SparseUpdate update(uint64_t clock, const std::vector<float>& w) override {
    std::vector<SparseUpdate> parts;
    bool dense = false;
    for (const auto& j : jobs_) {
      parts.push_back(j->update(clock, w));
      if (observe_) observe_(parts.back());
      dense = dense || parts.back().keys.empty();
    }
    if (parts.size() == 1) return std::move(parts.front());  // nothing to sum
    SparseUpdate out;
    if (dense) {
      std::vector<double> sum(parameters(), 0.0);
      for (const auto& p : parts) add_update(p, sum);
      out.values.assign(sum.begin(), sum.end());
      return out;
    }
    std::map<uint32_t, double> sum;
    for (const auto& p : parts)
      for (size_t i = 0; i < p.keys.size(); ++i) sum[p.keys[i]] += p.values[i];
    for (const auto& [key, v] : sum) {
      out.keys.push_back(key);
      out.values.push_back(static_cast<float>(v));
    }
    return out;
  }

  double held_out_loss(const std::vector<float>& w) const override {
    double sum = 0;
    for (const auto& j : jobs_) sum += j->held_out_loss(w);
    return sum / static_cast<double>(jobs_.size());
  }
  uint64_t clocks_per_pass() const override { return jobs_.front()->clocks_per_pass(); }
  size_t samples_per_update() const override {
    size_t n = 0;
    for (const auto& j : jobs_) n += j->samples_per_update();
    return n;
  }

 private:
  std::vector<std::unique_ptr<Job>> jobs_;
  WorkerUpdateObserver observe_;
};

}  // namespace

std::unique_ptr<Job> make_local_workers(const JobConfig& config, int node, int per_node,
                                        WorkerUpdateObserver observe) {
  if (per_node <= 1 && !observe) return make_job(config, node);
  std::vector<std::unique_ptr<Job>> jobs;
  const int n = std::max(1, per_node);
  for (int k = 0; k < n; ++k) jobs.push_back(make_job(config, node * n + k));
  return std::make_unique<LocalWorkers>(std::move(jobs), std::move(observe));
}

namespace {

// Worker k of the node draws from the seed offset by k: worker 0 draws as one worker did.
double worker_draw_ms(const ComputeRange& range, uint64_t seed, int node, int k, uint64_t clock,
                      const Stragglers& stragglers) {
  const uint64_t s = seed + static_cast<uint64_t>(k);
  const double factor = draw_straggler(stragglers, s, node, clock) ? stragglers.factor : 1.0;
  return draw_compute_ms(range, s, node, clock) * factor;
}

}  // namespace

int local_compute_ms(const ComputeRange& range, uint64_t seed, int node, int per_node,
                     uint64_t clock, double slowdown, const Stragglers& stragglers) {
  double slowest = 0;
  for (int k = 0; k < std::max(1, per_node); ++k)
    slowest = std::max(slowest, worker_draw_ms(range, seed, node, k, clock, stragglers));
  return static_cast<int>(std::lround(slowest * slowdown));
}

int worker_compute_ms(const ComputeRange& range, uint64_t seed, int node, int k, uint64_t clock,
                      double slowdown, const Stragglers& stragglers) {
  return static_cast<int>(
      std::lround(worker_draw_ms(range, seed, node, k, clock, stragglers) * slowdown));
}

}  // namespace testbed
