// The dense logistic regression of logistic_regression.h as a parameter-server job: the
// weights on the servers, full-batch gradients on the workers' shards.
#include "agent/jobs/job_factories.h"

#include "agent/jobs/logistic_regression.h"

namespace testbed {
namespace {

class LogRegJob : public Job {
 public:
  LogRegJob(const JobConfig& c, int worker)
      : config_(config_of(c)),
        train_(config_, worker),
        // A shard drawn with an index no worker has: same truth, samples of its own.
        held_out_(config_, config_.nodes + worker) {}

  size_t parameters() const override { return train_.parameters(); }
  float initial_value(uint32_t) const override { return 0.0f; }
  std::vector<uint32_t> keys_for(uint64_t) const override { return {}; }
  std::vector<uint32_t> eval_keys() const override { return {}; }
  SparseUpdate update(uint64_t, const std::vector<float>& w) override {
    SparseUpdate u;
    u.values = train_.gradient(w);
    // The servers add every worker's update: -rate * gradient / workers sums to the
    // reference's step, w <- w - rate * (sum of gradients) / nodes.
    const float factor = -config_.learning_rate / static_cast<float>(config_.nodes);
    for (auto& v : u.values) v *= factor;
    return u;
  }
  double held_out_loss(const std::vector<float>& w) const override { return held_out_.loss(w); }
  size_t samples_per_update() const override {
    return static_cast<size_t>(config_.samples_per_node);
  }

 private:
  static LogRegConfig config_of(const JobConfig& c) {
    LogRegConfig l;  // fixed size: it is the small exact job (see logistic_regression.h)
    l.seed = c.seed;
    l.nodes = c.workers;
    return l;
  }
  LogRegConfig config_;
  LogRegShard train_, held_out_;
};

}  // namespace

std::unique_ptr<Job> make_logreg_job(const JobConfig& config, int worker) {
  return std::make_unique<LogRegJob>(config, worker);
}

}  // namespace testbed
