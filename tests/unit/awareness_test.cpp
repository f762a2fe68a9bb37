#include "controller/training/netstorm/awareness.h"

#include <gtest/gtest.h>

#include "controller/training/strategies.h"

namespace testbed {
namespace {

ThroughputGraph line3() {
  ThroughputGraph g;
  g.nodes = 3;
  g.mbit = {{0, 100, 0}, {100, 0, 100}, {0, 100, 0}};
  return g;
}

TEST(PassiveAwareness, FourSamplesMakeAnEstimate) {
  ThroughputGraph g = line3();
  const SyncPolicy first = build_policy("netstorm", g);
  PassiveAwareness awareness(first, 5.0);
  // Three chunks of 1 MB in 0.1 s each from node 0 into node 1: not yet an estimate.
  awareness.add_samples(1, {{0, LinkSample{3e6, 0.3, 3}}}, g);
  EXPECT_EQ(g.mbit[0][1], 100);
  // The fourth: 4 MB in 0.4 s is 80 Mbit/s.
  awareness.add_samples(1, {{0, LinkSample{1e6, 0.1, 1}}}, g);
  EXPECT_DOUBLE_EQ(g.mbit[0][1], 80);
  EXPECT_EQ(g.mbit[1][0], 100);  // the other direction is its own link
}

TEST(PassiveAwareness, RebuildsEveryUpdateTimeKeepingTheRoots) {
  ThroughputGraph g = line3();
  SyncPolicy policy = build_policy("netstorm-std", g);
  policy.version = 1;
  const auto t0 = PassiveAwareness::Clock::now();
  PassiveAwareness awareness(policy, 5.0, t0);
  EXPECT_FALSE(awareness.maybe_rebuild(g, policy, t0 + std::chrono::seconds(4)));
  g.mbit[1][0] = 10;  // a link slows down
  const auto next = awareness.maybe_rebuild(g, policy, t0 + std::chrono::seconds(5));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->version, 2u);
  EXPECT_EQ(next->strategy, "netstorm-std");
  ASSERT_EQ(next->trees.size(), policy.trees.size());
  for (size_t i = 0; i < policy.trees.size(); ++i)
    EXPECT_EQ(next->trees[i].root, policy.trees[i].root);
  // Shares follow the new scores: the tree rooted at node 0 now collects over the slow
  // 1 -> 0 link, and its share drops; the centre's paths do not use it.
  for (size_t i = 0; i < policy.trees.size(); ++i) {
    if (policy.trees[i].root == 0) {
      EXPECT_LT(next->trees[i].share, policy.trees[i].share);
    }
  }
  EXPECT_FALSE(awareness.maybe_rebuild(g, *next, t0 + std::chrono::seconds(6)));
}

}  // namespace
}  // namespace testbed
