// The plans of the tiny profiles must match their goldens in tests/golden/ exactly.
// Set TESTBED_UPDATE_GOLDEN=1 to rewrite them after an intended change, then review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "direction_params.h"
#include "read_text.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

class Golden : public testing::TestWithParam<std::string> {};

TEST_P(Golden, PlanMatches) {
  const std::string name = GetParam();
  const std::string profile = "profiles/tiny/" + name + ".yaml";
  // Parsed from text under a relative name, so the golden does not depend on the checkout.
  const Plan plan = make_plan(
      parse_profile_text(read_text(TESTBED_PROFILES_DIR + "/tiny/" + name + ".yaml"), profile),
      /*kernel_has_netem=*/false);
  // With every route listed, so that a change of the routes shows in the diff.
  const std::string actual = plan_to_json(plan, /*with_routes=*/true).dump(2) + "\n";
  const std::string golden = TESTBED_GOLDEN_DIR + "/" + name + ".json";
  if (std::getenv("TESTBED_UPDATE_GOLDEN")) std::ofstream(golden) << actual;
  EXPECT_EQ(actual, read_text(golden)) << "plan of " << profile << " differs from " << golden;
}

INSTANTIATE_TEST_SUITE_P(Tiny, Golden, testing::Values("pair", "line4", "triangle"));

TEST(Planner, NamesStartWithTbAndFitTheKernel) {
  const Plan plan = make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml"), false);
  for (const auto& n : plan.nodes) EXPECT_EQ(n.ns.rfind("tb", 0), 0u) << n.ns;
  for (const auto& l : plan.links) {
    for (const auto& dev : {l.if_a, l.if_b}) {
      EXPECT_EQ(dev.rfind("tb", 0), 0u) << dev;
      EXPECT_LE(dev.size(), 15u) << dev;  // IFNAMSIZ - 1
    }
  }
  EXPECT_EQ(route_count(plan), 9u * 8u);
  EXPECT_EQ(plan.nodes[0].address.str(), "198.18.0.1");
  EXPECT_EQ(plan.links[0].subnet.str(), "198.19.0.0/30");
  ASSERT_EQ(plan.notes.size(), 1u);  // which backend applies delay and loss, and why
  EXPECT_EQ(plan.backend, ImpairmentBackend::kDelayLine);
  EXPECT_EQ(plan.delay_lines.size(), 9u);  // every node receives a 30 ms link
}

TEST(Planner, ShapingSizedForTheRate) {
  DirectionParams gigabit =
      direction(Rate{1000000000}, Duration{30000}, Duration{}, Fraction{}, std::nullopt);
  const RateShaping h = size_shaping(gigabit);
  EXPECT_EQ(h.rate_bytes_per_s, 125000000u);
  EXPECT_EQ(h.burst_bytes, 250000u + 68130u);  // 2 ms at 1 Gbit/s, and one GSO packet
  EXPECT_EQ(h.queue.unit, QueueLimit::Unit::kBytes);
  EXPECT_EQ(h.queue.limit, 7500000u);  // one BDP at a 60 ms round trip

  DirectionParams mbit =
      direction(Rate{1000000}, Duration{0}, Duration{}, Fraction{}, std::nullopt);
  EXPECT_EQ(size_shaping(mbit).burst_bytes, 16384u + 68130u);  // the floor, and a GSO packet
  EXPECT_EQ(size_shaping(mbit).queue.limit, 136260u);          // the floor: two GSO packets

  DirectionParams slow = direction(Rate{100000}, Duration{0}, Duration{}, Fraction{},
                                   QueueSize{QueueSize::Unit::kPackets, 50});
  const RateShaping s = size_shaping(slow);
  EXPECT_EQ(s.queue, (QueueLimit{QueueLimit::Unit::kPackets, 50}));
}

TEST(Planner, AFasterDirectionThanTheReadBackCarriesIsShapedAtItsLargest) {
  DirectionParams fast = direction(Rate{40000000000ULL}, Duration{0}, Duration{}, Fraction{},
                                   std::nullopt);                        // 40 Gbit/s
  EXPECT_EQ(size_shaping(fast).rate_bytes_per_s, uint64_t{UINT32_MAX});  // 34.4 Gbit/s
}

}  // namespace
}  // namespace testbed
