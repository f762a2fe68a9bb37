// A node's routes aggregated as a router would hold them (route_aggregation.h): every
// destination still goes where its own route sent it, and the table is smaller where the
// topology allows.
#include "controller/lab/route_aggregation.h"

#include <gtest/gtest.h>

#include <random>

#include "controller/lab/planner.h"
#include "controller/lab/route_book.h"
#include "controller/options/workload_settings.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

Ipv4Address node_address(uint32_t i) {
  return Ipv4Address{(198u << 24) | (18u << 16) | (i + 1)};  // 198.18.0.1 on
}

RouteSpec via(uint32_t dst, int hop) {
  return {Ipv4Prefix{node_address(dst), 32}, Ipv4Address{(198u << 24) | (19u << 16) | 4u * hop},
          "tb" + std::to_string(hop), node_address(0)};
}

void expect_same_forwarding(const std::vector<RouteSpec>& routes,
                            const std::vector<RouteSpec>& table) {
  for (const RouteSpec& r : routes) {
    const RouteSpec* m = longest_match(table, r.dst.address);
    ASSERT_NE(m, nullptr) << r.dst.str();
    EXPECT_EQ(m->via, r.via) << r.dst.str();
    EXPECT_EQ(m->dev, r.dev) << r.dst.str();
    EXPECT_EQ(m->src, r.src) << r.dst.str();
  }
}

TEST(RouteAggregation, AStarsLeafHoldsOneRouteForEveryOtherNode) {
  std::vector<RouteSpec> routes;
  for (uint32_t d = 1; d < 10000; ++d) routes.push_back(via(d, 0));
  const auto table = aggregate_routes(routes);
  ASSERT_EQ(table.size(), 1u);
  expect_same_forwarding(routes, table);
  // Never wider than the destinations' own block: 198.18.0.2 to 198.18.39.16 share /18.
  EXPECT_EQ(table[0].dst.str(), "198.18.0.0/18");
}

TEST(RouteAggregation, OneNextHopForPrefixesOfAnyLengthIsTheirCommonPrefix) {
  const Ipv4Address src = node_address(0);
  const Ipv4Address gw{(198u << 24) | (19u << 16) | 2u};
  const std::vector<RouteSpec> routes = {
      {Ipv4Prefix{Ipv4Address{(198u << 24) | (18u << 16) | (1u << 8)}, 24}, gw, "tb0", src},
      {Ipv4Prefix{Ipv4Address{(198u << 24) | (18u << 16) | 5u}, 32}, gw, "tb0", src}};
  const auto table = aggregate_routes(routes);
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].dst.str(), "198.18.0.0/23");  // where 198.18.1.0/24 and .0.5 part
  expect_same_forwarding(routes, table);
}

TEST(RouteAggregation, RandomNextHopsStillForwardEveryDestinationAsBefore) {
  std::mt19937 rng(7);
  std::vector<RouteSpec> routes;
  // Runs of one next hop, as nodes near each other in address are near in a ring.
  int hop = 0;
  for (uint32_t d = 1; d < 1000; ++d) {
    if (rng() % 8 == 0) hop = static_cast<int>(rng() % 5);
    routes.push_back(via(d, hop));
  }
  std::shuffle(routes.begin(), routes.end(), rng);
  const auto table = aggregate_routes(routes);
  expect_same_forwarding(routes, table);
  EXPECT_LT(table.size(), routes.size() / 2);
}

TEST(RouteAggregation, NextHopsThatAlternateKeepTheirOwnRoutes) {
  std::vector<RouteSpec> routes;
  for (uint32_t d = 1; d < 65; ++d) routes.push_back(via(d, static_cast<int>(d % 2)));
  const auto table = aggregate_routes(routes);
  expect_same_forwarding(routes, table);
  // One aggregate for one parity, a /32 for each of the other's 32: nothing fewer does it.
  EXPECT_EQ(table.size(), 33u);
}

TEST(RouteAggregation, OneRouteIsItself) {
  const std::vector<RouteSpec> routes = {via(5, 1)};
  EXPECT_EQ(aggregate_routes(routes), routes);
  EXPECT_TRUE(aggregate_routes({}).empty());
}

TEST(RouteAggregation, EveryNodeOfInternet2ForwardsAsItsPerDestinationRoutes) {
  const Plan plan = make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml"), false);
  const RouteBook book = route_book_of(plan);
  size_t before = 0, after = 0;
  for (size_t src = 0; src < plan.nodes.size(); ++src) {
    const auto routes = book.specs_from(src);
    const auto table = aggregate_routes(routes);
    expect_same_forwarding(routes, table);
    // The book's own, numbered by link, holds as many and forwards the same.
    const auto held = book.kernel_routes_from(src);
    expect_same_forwarding(routes, held);
    EXPECT_EQ(held.size(), table.size()) << plan.nodes[src].name;
    before += routes.size();
    after += table.size();
  }
  EXPECT_LT(after, before);
}

}  // namespace
}  // namespace testbed
