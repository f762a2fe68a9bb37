#include "agent/jobs/logistic_regression.h"

#include <cmath>
#include <random>

namespace testbed {
namespace {

float sigmoid(float z) {
  return 1.0f / (1.0f + std::exp(-z));
}

}  // namespace

LogRegShard::LogRegShard(const LogRegConfig& config, int node) : features_(config.features) {
  // The true weights are shared by all nodes (seeded by the run), the samples are not.
  std::mt19937_64 truth_rng(config.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> truth(static_cast<size_t>(features_));
  for (auto& t : truth) t = normal(truth_rng);
  std::mt19937_64 rng(config.seed * 1000003ULL + static_cast<uint64_t>(node) + 1);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int s = 0; s < config.samples_per_node; ++s) {
    float z = 0;
    for (int f = 0; f < features_; ++f) {
      const float v = normal(rng);
      x_.push_back(v);
      z += v * truth[static_cast<size_t>(f)];
    }
    y_.push_back(uniform(rng) < sigmoid(z) ? 1.0f : 0.0f);  // labels drawn, so not separable
  }
}

std::vector<float> LogRegShard::gradient(const std::vector<float>& w) const {
  std::vector<float> g(parameters(), 0.0f);
  const size_t n = y_.size();
  for (size_t s = 0; s < n; ++s) {
    const float* row = &x_[s * static_cast<size_t>(features_)];
    float z = w.back();
    for (int f = 0; f < features_; ++f) z += row[f] * w[static_cast<size_t>(f)];
    const float err = sigmoid(z) - y_[s];
    for (int f = 0; f < features_; ++f) g[static_cast<size_t>(f)] += err * row[f];
    g.back() += err;
  }
  for (auto& v : g) v /= static_cast<float>(n);
  return g;
}

double LogRegShard::loss(const std::vector<float>& w) const {
  double total = 0;
  for (size_t s = 0; s < y_.size(); ++s) {
    const float* row = &x_[s * static_cast<size_t>(features_)];
    double z = w.back();
    for (int f = 0; f < features_; ++f) z += row[f] * w[static_cast<size_t>(f)];
    const double p = 1.0 / (1.0 + std::exp(-z));
    total -= y_[s] > 0.5f ? std::log(std::max(p, 1e-12)) : std::log(std::max(1 - p, 1e-12));
  }
  return total / static_cast<double>(y_.size());
}

void apply_update(std::vector<float>& w, const std::vector<float>& gradient_sum,
                  const LogRegConfig& config) {
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] -= config.learning_rate * gradient_sum[i] / static_cast<float>(config.nodes);
  }
}

std::vector<float> reference_training(const LogRegConfig& config, int iterations) {
  std::vector<LogRegShard> shards;
  for (int n = 0; n < config.nodes; ++n) shards.emplace_back(config, n);
  std::vector<float> w(shards.front().parameters(), 0.0f);
  for (int it = 0; it < iterations; ++it) {
    std::vector<double> sum(w.size(), 0.0);
    for (const auto& s : shards) {
      const auto g = s.gradient(w);
      for (size_t i = 0; i < w.size(); ++i) sum[i] += g[i];
    }
    apply_update(w, std::vector<float>(sum.begin(), sum.end()), config);
  }
  return w;
}

}  // namespace testbed
