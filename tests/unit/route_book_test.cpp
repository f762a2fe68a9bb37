// The routes kept as their rule (route_book.h): the same routes as the records they
// replaced, read back from a plan's JSON, counted per slice, and a lab at scale kept small.
#include "controller/lab/route_book.h"

#include <gtest/gtest.h>

#include "agent/contracts/message_fields.h"
#include "controller/hosts/host_placement.h"
#include "controller/hosts/plan_slices.h"
#include "controller/lab/delay_line_groups.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

Plan plan_of(const std::string& profile) {
  return make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/" + profile), false);
}

TEST(RouteBook, TheTriangleRoutesByDelayAroundItsSlowLink) {
  const Plan plan = plan_of("tiny/triangle.yaml");
  const auto a = plan.routes->index("a"), c = plan.routes->index("c");
  ASSERT_TRUE(a && c);
  const auto r = plan.routes->route(*a, *c);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->path, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r->route.dst.str(), "198.18.0.3/32");
  EXPECT_EQ(r->route.via.str(), "198.19.0.2");  // b's end of link 0
  EXPECT_EQ(r->route.dev, "tb0-b");
  EXPECT_EQ(r->route.src.str(), "198.18.0.1");
  EXPECT_FALSE(plan.routes->route(*a, *a).has_value());
}

TEST(RouteBook, ReadBackFromThePlanItGivesTheSameRoutes) {
  for (const char* profile : {"internet2.yaml", "tiny/triangle.yaml", "tiny/line4.yaml"}) {
    const Plan plan = plan_of(profile);
    const nlohmann::json j = plan_to_json(plan);
    // Written as the rule and the count, not as records.
    ASSERT_TRUE(j["routes"].is_object()) << profile;
    EXPECT_EQ(j["routes"]["count"], route_count(plan)) << profile;
    const RouteBook back = route_book_of(plan_from_json(j));
    std::vector<std::string> names;
    for (const auto& n : plan.nodes) names.push_back(n.name);
    EXPECT_EQ(routes_to_json(back, names, true), plan_to_json(plan, true)["routes"]) << profile;
  }
}

TEST(RouteBook, ALinkToNoNodeIsNamed) {
  nlohmann::json j = plan_to_json(plan_of("tiny/pair.yaml"));
  j["links"][0]["a"] = "nowhere";
  try {
    route_book_of(plan_from_json(j));
    FAIL() << "made routes over a link to no node";
  } catch (const ContractError& e) {
    EXPECT_NE(std::string(e.what()).find("'nowhere'"), std::string::npos) << e.what();
  }
}

TEST(RouteBook, PathDelaysSumTheLinksOfEachRoute) {
  const Plan plan = plan_of("tiny/line4.yaml");  // n1 - n2 - n3 - n4
  std::vector<std::pair<int64_t, int64_t>> per_link(plan.links.size(), {10, 1});
  const auto d = plan.routes->path_delays_us(per_link);
  const size_t n1 = *plan.routes->index("n1"), n4 = *plan.routes->index("n4");
  // Links run n1->n4 in their a->b direction: 3 x 10 one way, 3 x 1 back.
  EXPECT_EQ(d(n1, n4), 30);
  EXPECT_EQ(d(n4, n1), 3);
  EXPECT_EQ(d(n1, n1), 0);
}

TEST(RouteBook, SlicesShareTheBookAndEachCountsItsOwnNodes) {
  const Plan plan = plan_of("internet2.yaml");
  size_t sum = 0;
  for (const auto& s : slice_plan(plan, compute_host_placement(plan, 3))) {
    EXPECT_EQ(s.plan.routes, plan.routes) << s.host;
    sum += route_count(s.plan);
  }
  EXPECT_EQ(sum, route_count(plan));
  EXPECT_EQ(sum, 9u * 8u);
}

TEST(DelayLineGroups, OnePerNodeUpToSixteenThenEvenRuns) {
  std::vector<PlannedDelayLine> lines(9);
  auto groups = delay_line_groups(lines);
  ASSERT_EQ(groups.size(), 9u);
  for (const auto& g : groups) EXPECT_EQ(g.size(), 1u);

  lines.resize(1000);
  for (size_t i = 0; i < lines.size(); ++i) lines[i].node = "n" + std::to_string(i);
  groups = delay_line_groups(lines);
  ASSERT_EQ(groups.size(), kMaxDelayLineProcesses);
  size_t next = 0;
  for (const auto& g : groups) {
    EXPECT_TRUE(g.size() == 62 || g.size() == 63) << g.size();  // 1000 / 16 = 62.5
    for (const PlannedDelayLine* l : g) EXPECT_EQ(l, &lines[next++]) << "every node, in order";
  }
  EXPECT_EQ(next, lines.size());
  EXPECT_TRUE(delay_line_groups({}).empty());
}

TEST(DelayLineGroups, AHubWeighsItsQueues) {
  // A star's: the hub receives from 1000 leaves, each leaf from the hub.
  std::vector<PlannedDelayLine> lines(1001);
  lines[0].queues.resize(1000);
  for (size_t i = 1; i < lines.size(); ++i) lines[i].queues.resize(1);
  const auto groups = delay_line_groups(lines, 2);
  ASSERT_EQ(groups.size(), 2u);
  size_t first = 0, second = 0;
  for (const PlannedDelayLine* l : groups[0]) first += delay_line_weight(*l);
  for (const PlannedDelayLine* l : groups[1]) second += delay_line_weight(*l);
  EXPECT_EQ(first + second, 1001u + 2000u);
  EXPECT_LE(first > second ? first - second : second - first, 2u) << first << " " << second;
  EXPECT_EQ(groups[0].size(), 1u + 250u);  // the hub (1001) and 250 leaves (2 each)

  // More processes than there is weight to share: still one node each, none empty.
  std::vector<PlannedDelayLine> heavy_first(3);
  heavy_first[0].queues.resize(100);
  const auto three = delay_line_groups(heavy_first, 3);
  ASSERT_EQ(three.size(), 3u);
  for (const auto& g : three) EXPECT_EQ(g.size(), 1u);
}

}  // namespace
}  // namespace testbed
