// Nine nodes synchronizing over every strategy's trees, in memory, with messages delivered
// in a random order and nodes starting their next iteration as soon as they finish, so that
// iterations overlap and the policy changes under messages in flight.
#include "agent/protocols/tree/tree_aggregator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "controller/training/strategies.h"

namespace testbed {
namespace {

constexpr int kNodes = 9;
constexpr size_t kElements = 10007;  // not a multiple of the chunk size: a short last chunk
constexpr uint32_t kChunk = 1000;

ThroughputGraph ring_with_chords() {
  ThroughputGraph g;
  g.nodes = kNodes;
  g.mbit.assign(kNodes, std::vector<double>(kNodes, 0));
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> rate(20, 155);
  auto link = [&](int a, int b) {
    g.mbit[a][b] = rate(rng);
    g.mbit[b][a] = rate(rng);
  };
  for (int n = 0; n < kNodes; ++n) link(n, (n + 1) % kNodes);
  link(0, 4);
  link(2, 7);
  return g;
}

std::vector<float> gradient(int node, uint64_t iteration) {
  std::mt19937 rng(static_cast<uint32_t>(node * 1000 + iteration));
  std::normal_distribution<float> d(0, 1);
  std::vector<float> g(kElements);
  for (auto& x : g) x = d(rng);
  return g;
}

TEST(TreeAggregator, EveryNodeGetsTheSameSumUnderChangingPoliciesAndAnyOrder) {
  const ThroughputGraph g = ring_with_chords();
  std::vector<SyncPolicy> policies;
  for (const auto& name : strategy_names()) policies.push_back(build_policy(name, g));
  const uint64_t iterations =
      policies.size() * 2;  // every strategy, twice: policy changes each time

  for (uint32_t seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(seed);
    std::vector<TreeAggregator> nodes;
    for (int n = 0; n < kNodes; ++n) nodes.emplace_back(n, kChunk);
    std::vector<ChunkMessage> in_flight;
    std::vector<std::vector<std::vector<float>>> results(iterations,
                                                         std::vector<std::vector<float>>(kNodes));
    auto send = [&](std::vector<ChunkMessage> out) {
      for (auto& m : out) in_flight.push_back(std::move(m));
    };
    auto start = [&](int n, uint64_t it) {
      send(nodes[n].start(it, policies[it % policies.size()], gradient(n, it)));
    };
    for (int n = 0; n < kNodes; ++n) start(n, 0);
    while (!in_flight.empty()) {
      std::uniform_int_distribution<size_t> pick(0, in_flight.size() - 1);
      const size_t i = pick(rng);
      ChunkMessage m = std::move(in_flight[i]);
      in_flight[i] = std::move(in_flight.back());
      in_flight.pop_back();
      const int to = m.to;
      send(nodes[to].receive(std::move(m)));
      if (nodes[to].done()) {
        const uint64_t it = nodes[to].iteration();
        if (results[it][to].empty()) {
          results[it][to] = nodes[to].result();
          if (it + 1 < iterations) start(to, it + 1);
        }
      }
    }
    for (uint64_t it = 0; it < iterations; ++it) {
      for (int n = 0; n < kNodes; ++n) {
        ASSERT_EQ(results[it][n].size(), kElements)
            << "node " << n << " never finished iteration " << it;
        // Every node holds the root's sums: identical bits everywhere.
        EXPECT_EQ(results[it][n], results[it][0]) << "iteration " << it << " node " << n;
      }
      // Against a double-precision reference. Float addition is not associative, and each
      // tree adds in its own order; nine float32 terms differ from the exact sum by at most
      // 8 roundings of 2^-24 of the sum of magnitudes each, so 1e-6 of it bounds the error.
      std::vector<std::vector<float>> grads;
      for (int n = 0; n < kNodes; ++n) grads.push_back(gradient(n, it));
      for (size_t e = 0; e < kElements; ++e) {
        double exact = 0, magnitude = 0;
        for (int n = 0; n < kNodes; ++n) {
          exact += grads[n][e];
          magnitude += std::fabs(grads[n][e]);
        }
        ASSERT_NEAR(results[it][0][e], exact, 1e-6 * magnitude)
            << "iteration " << it << " element " << e;
      }
    }
  }
}

TEST(TreeAggregator, ADuplicateContributionIsRefused) {
  SyncPolicy p;
  p.trees = {AggregationTree{0, {kNoParent, 0}, 1.0}};
  TreeAggregator root(0, 4);
  EXPECT_TRUE(root.start(0, p, std::vector<float>(4, 1.0f)).empty());  // waits for node 1
  ChunkMessage up{ChunkMessage::Kind::kUp, 0, 0, 1, 0, std::vector<float>(4, 2.0f)};
  const auto down = root.receive(up);
  ASSERT_EQ(down.size(), 1u);
  EXPECT_EQ(down[0].kind, ChunkMessage::Kind::kDown);
  EXPECT_EQ(down[0].data, std::vector<float>(4, 3.0f));
  EXPECT_TRUE(root.done());
  EXPECT_THROW(root.receive(up), std::logic_error);
}

}  // namespace
}  // namespace testbed
