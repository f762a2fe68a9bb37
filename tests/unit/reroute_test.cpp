// Routing around failures (controller/dynamics/rerouter.h): the routes that avoid dead
// links, only those that differ replaced, an unreachable destination left black-holed,
// the profile's `reroute:` and its refusals, and a convergence on the fake kernel.
#include "controller/dynamics/rerouter.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include "controller/lab/route_aggregation.h"

#include <filesystem>

#include "controller/dynamics/lab_json_file.h"
#include "controller/lab/applier.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "netns/fake_kernel.h"
#include "validation_errors.h"

namespace testbed {
namespace {

// a - b - c - d in a line (links 0, 1, 2), and a long way round a - e - d (links 3, 4).
const std::string kRing =
    "lab: rr\nnodes: {a: {}, b: {}, c: {}, d: {}, e: {}}\nreroute: {convergence: 50ms}\n"
    "defaults: {bandwidth: 10mbit, delay: 1ms}\nlinks:\n"
    "  - {endpoints: [a, b]}\n  - {endpoints: [b, c]}\n  - {endpoints: [c, d]}\n"
    "  - {endpoints: [a, e], delay: 20ms}\n  - {endpoints: [e, d], delay: 20ms}\n";

Plan ring_plan() {
  return make_plan(parse_profile_text(kRing, "rr.yaml"), false);
}

std::vector<std::string> path(const RouteBook& book, const char* from, const char* to) {
  return book.route(*book.index(from), *book.index(to))->path;
}

TEST(Reroute, ADeadLinksRoutesTakeTheShortestWayLeft) {
  const Plan plan = ring_plan();
  const RouteBook& base = *plan.routes;
  EXPECT_EQ(path(base, "a", "c"), (std::vector<std::string>{"a", "b", "c"}));
  const RouteBook around = base.avoiding({1});  // b - c dead
  EXPECT_EQ(path(around, "a", "c"), (std::vector<std::string>{"a", "e", "d", "c"}));
  EXPECT_EQ(path(around, "b", "d"), (std::vector<std::string>{"b", "a", "e", "d"}));
  EXPECT_EQ(path(around, "a", "b"), (std::vector<std::string>{"a", "b"})) << "untouched";
  // Only what differs is replaced (by hop count, the profile's metric): a's route to c,
  // b's to c and d, c's to a and b, d's to b. e's routes never crossed b - c.
  const auto changed = changed_routes(base, around);
  size_t count = 0;
  for (const auto& [src, routes] : changed) count += routes.size();
  EXPECT_EQ(count, 6u);
  EXPECT_EQ(changed.count(*base.index("e")), 0u);
  // And back: the same routes return when the link does.
  const auto back = changed_routes(around, base.avoiding({}));
  size_t back_count = 0;
  for (const auto& [src, routes] : back) back_count += routes.size();
  EXPECT_EQ(back_count, count);
}

TEST(Reroute, ADestinationCutOffKeepsItsRouteAndIsBlackHoled) {
  const Plan plan = ring_plan();
  const RouteBook& base = *plan.routes;
  // c - d and e - d dead: d is cut off; a's route to d stays as it was (via b).
  const RouteBook around = base.avoiding({2, 4});
  EXPECT_EQ(around.spec_to(*base.index("a"), *base.index("d")),
            base.spec_to(*base.index("a"), *base.index("d")));
  EXPECT_EQ(path(around, "c", "a"), (std::vector<std::string>{"c", "b", "a"}));
}

TEST(Reroute, TheProfileChoosesRerouteAndItsConvergence) {
  const Topology t = parse_profile_text(kRing, "rr.yaml");
  EXPECT_EQ(t.reroute_convergence_us, 50000);
  const std::string plain =
      kRing.substr(0, kRing.find("reroute")) + kRing.substr(kRing.find("defaults"));
  EXPECT_FALSE(parse_profile_text(plain, "rr.yaml").reroute_convergence_us) << "static";
  const std::string with_default = kRing.substr(0, kRing.find("reroute")) + "reroute: {}\n" +
                                   kRing.substr(kRing.find("defaults"));
  EXPECT_EQ(parse_profile_text(with_default, "rr.yaml").reroute_convergence_us,
            kDefaultConvergenceUs);
  EXPECT_EQ(plan_to_json(ring_plan())["reroute"]["convergence_us"], 50000);
  const auto bad = [&](const std::string& value) {
    const std::string text = kRing.substr(0, kRing.find("reroute")) + "reroute: " + value + "\n" +
                             kRing.substr(kRing.find("defaults"));
    return validation_errors([&] { parse_profile_text(text, "rr.yaml"); });
  };
  EXPECT_EQ(bad("{convergence: 61s}"),
            std::vector<std::string>{"rr.yaml:3:24: reroute.convergence: at most 60s"});
  EXPECT_EQ(
      bad("{convergance: 1s}"),
      std::vector<std::string>{"rr.yaml:3:11: unknown key 'convergance' in reroute (did you mean "
                               "'convergence'?)"});
  EXPECT_EQ(bad("fast"),
            std::vector<std::string>{"rr.yaml:3:10: reroute: expected a mapping, {} or "
                                     "{convergence: 300ms}"});
}

// A convergence on the fake kernel, from the lab's state files in a directory of its own.
TEST(Reroute, ConvergingReplacesTheChangedRoutesOnceAndRecordsTheDeadSet) {
  const Plan plan = ring_plan();
  FakeKernel kernel;
  Applier(kernel).apply(plan);
  const std::string dir =
      std::filesystem::temp_directory_path() / ("tb-reroute-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const Plan read_back = plan_from_json(plan_to_json(plan));  // as the timeline reads it
  Rerouter rerouter(kernel, dir, read_back);
  EXPECT_EQ(rerouter.convergence_us(), 50000);
  EXPECT_FALSE(rerouter.converge().changed()) << "nothing dead, nothing to do";
  // b -> c cut (one direction is enough: the link is dead to the routing protocol).
  auto dirs = live_directions(read_back, CurrentLinks{});
  for (auto& d : dirs)
    if (d.link == 1 && !d.b2a) d.down = true;
  record_current(dir, dirs[2]);
  ASSERT_TRUE(dirs[2].down);
  const RerouteResult r = rerouter.converge();
  EXPECT_EQ(r.dead, (std::set<size_t>{1}));
  EXPECT_GT(r.routes, 0u);
  EXPECT_EQ(r.namespaces, 4u);
  // The kernels hold aggregated prefixes: what matters is where each destination goes now,
  // and that every node's table is exactly the book's around the cut (nothing stale left).
  const auto a_routes = kernel.routes("tb-rr-a");
  const RouteSpec* to_c = longest_match(a_routes, *Ipv4Address::parse("198.18.0.3"));
  ASSERT_NE(to_c, nullptr);
  EXPECT_EQ(to_c->dev, "tb3-e") << "a reaches c by e now";
  const RouteBook around = route_book_of(read_back).avoiding({1});
  for (size_t src = 0; src < read_back.nodes.size(); ++src) {
    auto held = kernel.routes(read_back.nodes[src].ns);
    std::sort(held.begin(), held.end());
    EXPECT_EQ(held, around.kernel_routes_from(src)) << read_back.nodes[src].name;
  }
  EXPECT_FALSE(rerouter.converge().changed()) << "converged already";
  EXPECT_EQ(read_json_object(dir + "/routes.json")["dead_links"], nlohmann::json::array({1}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace testbed
