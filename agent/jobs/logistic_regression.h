// A real small training job, so that strategies can be judged on the model they produce as
// well as on speed: logistic regression on data generated from a seed, sharded across the
// nodes. Each node's gradient is a true gradient of its shard's log-loss; the sum over
// nodes, divided by their number, updates every node's copy of the weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace testbed {

struct LogRegConfig {
  uint64_t seed = 1;
  int nodes = 1;
  int features = 64;
  int samples_per_node = 512;
  float learning_rate = 0.5f;
};

class LogRegShard {
 public:
  LogRegShard(const LogRegConfig& config, int node);
  // d loss / d w over this shard (mean over its samples); the last weight is the bias.
  std::vector<float> gradient(const std::vector<float>& w) const;
  double loss(const std::vector<float>& w) const;
  size_t parameters() const { return static_cast<size_t>(features_) + 1; }

 private:
  int features_;
  std::vector<float> x_;  // samples x features, row-major
  std::vector<float> y_;  // 0 or 1
};

// w <- w - learning_rate * gradient_sum / nodes: every node applies the same update.
void apply_update(std::vector<float>& w, const std::vector<float>& gradient_sum,
                  const LogRegConfig& config);

// The same training in one process, summing the nodes' gradients in double precision:
// the reference every node's model is compared with.
std::vector<float> reference_training(const LogRegConfig& config, int iterations);

}  // namespace testbed
