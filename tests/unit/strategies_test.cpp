#include "controller/training/strategies.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "controller/topology/topology_parser.h"
#include "internet2_graph.h"

namespace testbed {
namespace {

StrategyOptions with_ps_node(int node) {
  StrategyOptions o;
  o.ps_node = node;
  return o;
}

StrategyOptions with_num_roots(int roots) {
  StrategyOptions o;
  o.num_roots = roots;
  return o;
}

ThroughputGraph graph(int n, std::initializer_list<std::tuple<int, int, double, double>> links) {
  ThroughputGraph g;
  g.nodes = n;
  g.mbit.assign(n, std::vector<double>(n, 0));
  for (auto [a, b, ab, ba] : links) {
    g.mbit[a][b] = ab;
    g.mbit[b][a] = ba;
  }
  return g;
}

ThroughputGraph internet2() {
  return internet2_graph();
}

TEST(Strategies, EveryStrategyBuildsSpanningTreesOnInternet2) {
  const ThroughputGraph g = internet2();
  for (const auto& name : strategy_names()) {
    const SyncPolicy p = build_policy(name, g);
    ASSERT_FALSE(p.trees.empty()) << name;
    for (const auto& t : p.trees) {
      EXPECT_EQ(check_tree(t), "") << name << " root " << t.root;
      if (name == "mst" || name == "fapt" || name == "netstorm") {
        // Network-aware trees follow physical links.
        for (int n = 0; n < g.nodes; ++n) {
          if (t.parent[n] != kNoParent) {
            EXPECT_TRUE(g.has_link(n, t.parent[n])) << name << " " << n;
          }
        }
      }
    }
  }
  EXPECT_EQ(build_policy("netstorm", g).trees.size(), 9u);  // NUM_ROOT_SERVERS = 9
  EXPECT_THROW(build_policy("allreduce", g), std::invalid_argument);
}

TEST(Strategies, StarAtTheBestConnectedNode) {
  // Node 1 has the most throughput over its links.
  const ThroughputGraph g = graph(3, {{0, 1, 100, 100}, {1, 2, 100, 100}, {0, 2, 10, 10}});
  const SyncPolicy p = build_policy("ps", g);
  EXPECT_EQ(p.trees[0].root, 1);
  EXPECT_EQ(p.trees[0].parent, (std::vector<int>{1, kNoParent, 1}));
  EXPECT_EQ(build_policy("ps", g, with_ps_node(2)).trees[0].root, 2);
}

TEST(Strategies, BalancedBinaryTree) {
  const SyncPolicy p = build_policy("bkt", internet2(), with_ps_node(0));
  // Heap layout: 1,2 under 0; 3,4 under 1; 5,6 under 2; 7,8 under 3.
  EXPECT_EQ(p.trees[0].parent, (std::vector<int>{kNoParent, 0, 0, 1, 1, 2, 2, 3, 3}));
}

TEST(Strategies, MaximumSpanningTreeKeepsTheFastLinks) {
  // A square whose 0-3 link is slow: the tree drops it.
  const ThroughputGraph g =
      graph(4, {{0, 1, 100, 90}, {1, 2, 80, 80}, {2, 3, 70, 75}, {0, 3, 5, 5}});
  const AggregationTree t = build_policy("mst", g).trees[0];
  EXPECT_EQ(check_tree(t), "");
  for (int n = 0; n < 4; ++n) {
    const int p = t.parent[n];
    if (p == kNoParent) continue;
    EXPECT_FALSE((n == 0 && p == 3) || (n == 3 && p == 0)) << "used the slow link";
  }
  // Rooted at a centre of the path 0-1-2-3: node 1 or 2.
  EXPECT_TRUE(t.root == 1 || t.root == 2);
}

TEST(Strategies, FastestPathsDetourAroundASlowDirectLink) {
  // 0 -> 2 directly at 10 Mbit/s costs 1/10; via 1 at 100 each costs 2/100: the detour wins.
  const ThroughputGraph g = graph(3, {{0, 1, 100, 100}, {1, 2, 100, 100}, {0, 2, 10, 10}});
  const std::vector<int> next = fastest_paths_to(g, 2);
  EXPECT_EQ(next[0], 1);
  EXPECT_EQ(next[1], 2);
  EXPECT_EQ(next[2], kNoParent);
}

TEST(Strategies, RootQualityAsNetStormDefinesIt) {
  // A line 0 - 1 - 2. Toward root 1: both hops are at depth 1, the slowest is 10 (0->1):
  // score 1 / (1/10) = 10. Toward root 0: depth 1 is 1->0 (40), depth 2 is 2->1 (20):
  // score 1 / (1/40 + 1/20) = 13.33.
  const ThroughputGraph g = graph(3, {{0, 1, 10, 40}, {1, 2, 30, 20}});
  EXPECT_DOUBLE_EQ(root_quality(g, 1), 10.0);
  EXPECT_NEAR(root_quality(g, 0), 1.0 / (1.0 / 40 + 1.0 / 20), 1e-12);
  // fapt picks the best score; netstorm keeps every root, sharing by score.
  EXPECT_EQ(build_policy("fapt", g).trees[0].root, 0);
  const SyncPolicy ns = build_policy("netstorm", g, with_num_roots(2));
  ASSERT_EQ(ns.trees.size(), 2u);
  EXPECT_EQ(ns.trees[0].root, 0);
  EXPECT_GT(ns.trees[0].share, ns.trees[1].share);
}

TEST(Strategies, ChunksAreSplitByShareAndEachGoesToOneTree) {
  SyncPolicy p;
  p.trees = {AggregationTree{0, {}, 3.0}, AggregationTree{1, {}, 1.0}, AggregationTree{2, {}, 0.0}};
  const auto ranges = assign_chunks(p, 100);
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0], (std::pair<uint32_t, uint32_t>{0, 75}));
  EXPECT_EQ(ranges[1], (std::pair<uint32_t, uint32_t>{75, 100}));
  EXPECT_EQ(ranges[2], (std::pair<uint32_t, uint32_t>{100, 100}));
}

TEST(Strategies, BottomUpOrderPutsChildrenFirst) {
  const AggregationTree t = build_policy("bkt", internet2(), with_ps_node(0)).trees[0];
  const auto order = bottom_up_order(t);
  ASSERT_EQ(order.size(), 9u);
  EXPECT_EQ(order.back(), 0);
  std::vector<int> position(9);
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int>(i);
  for (int n = 0; n < 9; ++n) {
    if (t.parent[n] != kNoParent) {
      EXPECT_LT(position[n], position[t.parent[n]]);
    }
  }
}

}  // namespace
}  // namespace testbed
