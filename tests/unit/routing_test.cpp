#include "controller/topology/routing.h"

#include <gtest/gtest.h>

#include "controller/options/workload_settings.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

std::vector<std::string> names(const Topology& t, const std::vector<size_t>& path) {
  std::vector<std::string> out;
  for (size_t n : path) out.push_back(t.nodes[n].name);
  return out;
}

TEST(Routing, HopCountTakesTheDirectLink) {
  Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/tiny/triangle.yaml");
  t.metric = RouteMetric::kHops;
  const RoutingTable table = compute_routes(t);
  EXPECT_EQ(names(t, route_path(table, 0, 2)), (std::vector<std::string>{"a", "c"}));
}

TEST(Routing, DelayDetoursAroundTheSlowLink) {
  const Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/tiny/triangle.yaml");
  const RoutingTable table = compute_routes(t);
  EXPECT_EQ(names(t, route_path(table, 0, 2)), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(table.at(0, 2).hops, 2);
  // 2 x (10 ms + 1 us): the metric adds 1 us per hop to prefer fewer hops among equals.
  EXPECT_EQ(table.at(0, 2).cost, 2 * 10001);
}

TEST(Routing, Internet2EveryPairReachableAlongConsistentShortestPaths) {
  const Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml");
  const RoutingTable table = compute_routes(t);
  // Hop distances by breadth-first search, computed independently of compute_routes.
  const size_t n = t.nodes.size();
  for (size_t src = 0; src < n; ++src) {
    std::vector<int> dist(n, -1);
    std::vector<size_t> queue{src};
    dist[src] = 0;
    for (size_t i = 0; i < queue.size(); ++i) {
      for (const Link& l : t.links) {
        for (auto [u, v] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
          if (u == queue[i] && dist[v] < 0) {
            dist[v] = dist[u] + 1;
            queue.push_back(v);
          }
        }
      }
    }
    for (size_t dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      const auto path = route_path(table, src, dst);
      ASSERT_FALSE(path.empty()) << t.nodes[src].name << " -> " << t.nodes[dst].name;
      EXPECT_EQ(static_cast<int>(path.size()) - 1, dist[dst]);
      // Hop-by-hop consistency: the rest of the path is the next hop's own route.
      EXPECT_EQ(std::vector<size_t>(path.begin() + 1, path.end()), route_path(table, path[1], dst));
    }
  }
  // Seattle to New York is four hops in Internet2 (e.g. via Salt Lake City, Kansas City, Chicago).
  EXPECT_EQ(table.at(0, 8).hops, 4);
}

TEST(Routing, EveryPathsCostIsTheLeastByFloydWarshall) {
  // The table holds only each pair's link; the cost is summed along the path when asked.
  // Checked against all-pairs least costs computed independently, under the delay metric.
  const Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml");
  const RoutingTable table = compute_routes(t);
  const size_t n = t.nodes.size();
  constexpr int64_t kInf = INT64_MAX / 4;
  std::vector<std::vector<int64_t>> d(n, std::vector<int64_t>(n, kInf));
  for (size_t v = 0; v < n; ++v) d[v][v] = 0;
  for (const Link& l : t.links) {
    d[l.a][l.b] = std::min(d[l.a][l.b], route_weight(t.metric, l.a2b.delay.us));
    d[l.b][l.a] = std::min(d[l.b][l.a], route_weight(t.metric, l.b2a.delay.us));
  }
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) d[i][j] = std::min(d[i][j], d[i][k] + d[k][j]);
  for (size_t src = 0; src < n; ++src) {
    for (size_t dst = 0; dst < n; ++dst) {
      if (src == dst) continue;
      const NextHop hop = table.at(src, dst);
      EXPECT_EQ(hop.cost, d[src][dst]) << src << " -> " << dst;
      EXPECT_EQ(hop.hops + 1, static_cast<int>(route_path(table, src, dst).size()));
      EXPECT_EQ(hop.node, route_path(table, src, dst)[1]);
    }
  }
  EXPECT_EQ(table.at(3, 3).node, SIZE_MAX);
}

TEST(Routing, AStaleRouteThatLoopsEndsItsWalk) {
  // a - b - c; b is made to send a's traffic for c back to a, as a reroute around a dead
  // link can leave a stale route: the path is unreachable and the walk ends.
  RoutingTable table = compute_routes(3, {{0, 1, 1, 1}, {1, 2, 1, 1}});
  table.set_link(1, 2, 0);
  EXPECT_TRUE(route_path(table, 0, 2).empty());
  EXPECT_LE(table.at(0, 2).hops, 4);
}

}  // namespace
}  // namespace testbed
