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
  EXPECT_EQ(table[0][2].hops, 2);
  // 2 x (10 ms + 1 us): the metric adds 1 us per hop to prefer fewer hops among equals.
  EXPECT_EQ(table[0][2].cost, 2 * 10001);
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
  EXPECT_EQ(table[0][8].hops, 4);
}

}  // namespace
}  // namespace testbed
