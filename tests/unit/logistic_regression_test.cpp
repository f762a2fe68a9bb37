#include "agent/jobs/logistic_regression.h"

#include <gtest/gtest.h>

#include <cmath>

namespace testbed {
namespace {

TEST(LogisticRegression, TrainingLowersTheLossAndIsSeeded) {
  const LogRegConfig config{3, 4, 16, 256, 0.5f};
  const LogRegShard shard(config, 0);
  const std::vector<float> zero(shard.parameters(), 0.0f);
  EXPECT_NEAR(shard.loss(zero), std::log(2.0), 1e-9);  // w = 0 predicts 0.5 everywhere
  const auto w = reference_training(config, 30);
  EXPECT_LT(shard.loss(w), 0.6 * std::log(2.0));
  EXPECT_EQ(w, reference_training(config, 30));
  EXPECT_NE(w, reference_training(LogRegConfig{4, 4, 16, 256, 0.5f}, 30));
}

TEST(LogisticRegression, GradientMatchesFiniteDifferences) {
  const LogRegConfig config{5, 2, 8, 128, 0.5f};
  const LogRegShard shard(config, 1);
  std::vector<float> w(shard.parameters(), 0.1f);
  const auto g = shard.gradient(w);
  for (size_t i = 0; i < w.size(); ++i) {
    auto plus = w, minus = w;
    plus[i] += 1e-2f;
    minus[i] -= 1e-2f;
    EXPECT_NEAR(g[i], (shard.loss(plus) - shard.loss(minus)) / 2e-2, 1e-3) << "weight " << i;
  }
}

}  // namespace
}  // namespace testbed
