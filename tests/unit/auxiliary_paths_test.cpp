// NetStorm's auxiliary path search (Alg. 3) and the sender's choice between the primary
// path and the auxiliary routes (Sec. VI-A).
#include "controller/training/netstorm/auxiliary_paths.h"

#include <gtest/gtest.h>

#include <set>

#include "agent/protocols/tree/path_scheduler.h"
#include "agent/protocols/tree/sync_policy_json.h"
#include "controller/training/strategies.h"
#include "internet2_graph.h"

namespace testbed {
namespace {

// 0 -- 1 directly (slow), 0-2-1 (fast), 0-3-1 (slower), and 0-2-3-1 sharing their edges.
ThroughputGraph diamond() {
  ThroughputGraph g;
  g.nodes = 4;
  g.mbit.assign(4, std::vector<double>(4, 0));
  const auto link = [&](int a, int b, double mbit) { g.mbit[a][b] = g.mbit[b][a] = mbit; };
  link(0, 1, 10);
  link(0, 2, 100);
  link(2, 1, 100);
  link(0, 3, 50);
  link(3, 1, 50);
  link(2, 3, 200);
  return g;
}

TEST(AuxiliaryRoutes, SkipThePrimaryEdgeAreEdgeDisjointAndFastestFirst) {
  const auto routes = auxiliary_routes(diamond(), 0, 1, 16);
  ASSERT_EQ(routes.size(), 2u);
  EXPECT_EQ(routes[0], (std::vector<int>{0, 2, 1}));  // 2/100 beats 2/50
  EXPECT_EQ(routes[1], (std::vector<int>{0, 3, 1}));
  // Every edge out of 0 and into 1 is used once, so nothing else remains.
}

TEST(AuxiliaryRoutes, LongRoutesAreLeftOut) {
  EXPECT_TRUE(auxiliary_routes(diamond(), 0, 1, 2).empty());
}

TEST(AuxiliaryRoutes, EveryTreeEdgeOfNetStormProHasRoutesOverPhysicalLinks) {
  const ThroughputGraph g = internet2_graph();
  const SyncPolicy p = build_policy("netstorm-pro", g);
  ASSERT_TRUE(p.aux.has_value());
  EXPECT_EQ(p.aux->primary_busy_bound, 2);  // Table II
  EXPECT_EQ(p.aux->queue_length, 1);
  size_t with_routes = 0;
  for (const auto& tree : p.trees) {
    for (size_t n = 0; n < tree.parent.size(); ++n) {
      if (tree.parent[n] == kNoParent) continue;
      const int child = static_cast<int>(n);
      ASSERT_TRUE(p.aux->routes.count({child, tree.parent[n]}));
      ASSERT_TRUE(p.aux->routes.count({tree.parent[n], child}));
    }
  }
  for (const auto& [edge, routes] : p.aux->routes) {
    std::set<std::pair<int, int>> used;
    for (const auto& r : routes) {
      EXPECT_EQ(r.front(), edge.first);
      EXPECT_EQ(r.back(), edge.second);
      EXPECT_GT(r.size(), 2u);  // never the direct edge
      for (size_t i = 0; i + 1 < r.size(); ++i) {
        EXPECT_TRUE(g.has_link(r[i], r[i + 1]));
        EXPECT_TRUE(used.insert({r[i], r[i + 1]}).second) << "edge used twice";
      }
    }
    with_routes += routes.empty() ? 0 : 1;
  }
  EXPECT_EQ(with_routes, p.aux->routes.size());  // Internet2 has no bridge links
  EXPECT_FALSE(build_policy("netstorm-std", g).aux.has_value());
}

SyncPolicy with_aux(int busy, int queue) {
  SyncPolicy p;
  AuxiliaryPaths aux;
  aux.primary_busy_bound = busy;
  aux.queue_length = queue;
  aux.routes[{0, 1}] = {{0, 2, 1}, {0, 3, 1}};
  p.aux = aux;
  return p;
}

TEST(PathScheduler, PrimaryUntilBusyThenAuxiliaryInRankThenPrimaryAgain) {
  PathScheduler s(0);
  const SyncPolicy p = with_aux(2, 1);
  const std::vector<int> primary{0, 1}, fast{0, 2, 1}, slow{0, 3, 1};
  EXPECT_EQ(s.choose(p, 1), primary);
  EXPECT_EQ(s.choose(p, 1), primary);
  EXPECT_EQ(s.choose(p, 1), fast);     // primary busy with 2 in flight
  EXPECT_EQ(s.choose(p, 1), slow);     // fast is full (queue length 1)
  EXPECT_EQ(s.choose(p, 1), primary);  // everything busy: back to the primary
  EXPECT_EQ(s.in_flight(primary), 3);
  s.acknowledged(fast);
  EXPECT_EQ(s.choose(p, 1), fast);
  s.acknowledged(primary);
  s.acknowledged(primary);
  EXPECT_EQ(s.choose(p, 1), primary);  // 1 in flight < 2
  EXPECT_EQ(s.in_flight(primary), 2);
}

TEST(PathScheduler, OtherDestinationsAndPoliciesWithoutAuxUseThePrimary) {
  PathScheduler s(0);
  const SyncPolicy p = with_aux(0, 1);                  // busy at once
  EXPECT_EQ(s.choose(p, 4), (std::vector<int>{0, 4}));  // no routes to 4
  const SyncPolicy plain;
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.choose(plain, 1), (std::vector<int>{0, 1}));
  EXPECT_EQ(s.in_flight({0, 1}), 0);  // not counted: nothing will acknowledge them
  s.acknowledged({0, 9, 1});          // unknown route: ignored
}

TEST(SyncPolicyJson, RoundTripsTreesAndAuxiliaryPaths) {
  SyncPolicy p = with_aux(3, 5);
  p.strategy = "netstorm-pro";
  p.version = 7;
  p.trees = {{1, {1, kNoParent, 1, 1}, 0.75}, {2, {2, 2, kNoParent, 2}, 0.25}};
  const SyncPolicy q = policy_from_json(nlohmann::json::parse(to_json(p).dump()));
  EXPECT_EQ(q.strategy, "netstorm-pro");
  EXPECT_EQ(q.version, 7u);
  ASSERT_EQ(q.trees.size(), 2u);
  EXPECT_EQ(q.trees[1].parent, p.trees[1].parent);
  EXPECT_DOUBLE_EQ(q.trees[0].share, 0.75);
  ASSERT_TRUE(q.aux.has_value());
  EXPECT_EQ(q.aux->primary_busy_bound, 3);
  EXPECT_EQ(q.aux->queue_length, 5);
  EXPECT_EQ(q.aux->routes, p.aux->routes);
  EXPECT_FALSE(policy_from_json(to_json(SyncPolicy{})).aux.has_value());
}

}  // namespace
}  // namespace testbed
