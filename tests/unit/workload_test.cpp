// The workload settings a profile and `testbed train` share: their checks, and the
// compute time drawn per node and iteration from the seed, stragglers included.
#include "controller/options/workload_settings.h"

#include <gtest/gtest.h>

#include <set>

#include "agent/jobs/local_workers.h"
#include "controller/topology/topology_parser.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

TEST(ComputeRange, ParsesFixedAndRangesAndRefusesNonsense) {
  EXPECT_EQ(parse_compute_range("0").max_ms, 0);
  const ComputeRange r = parse_compute_range("150-250");
  EXPECT_EQ(r.min_ms, 150);
  EXPECT_EQ(r.max_ms, 250);
  for (const char* bad : {"", "-5", "250-150", "1.5", "10ms", "1-2-3", "99999999999"})
    EXPECT_THROW(parse_compute_range(bad), std::invalid_argument) << bad;
}

TEST(ComputeRange, DrawsRepeatWithinBoundsAndDifferPerNodeAndIteration) {
  const ComputeRange r{100, 200};
  std::set<int> seen;
  for (int node = 0; node < 9; ++node) {
    for (uint64_t it = 0; it < 20; ++it) {
      const int ms = draw_compute_ms(r, 7, node, it);
      EXPECT_GE(ms, 100);
      EXPECT_LE(ms, 200);
      EXPECT_EQ(ms, draw_compute_ms(r, 7, node, it));
      seen.insert(ms);
    }
  }
  // 180 draws from 101 values: far more than a handful of them differ.
  EXPECT_GT(seen.size(), 50u);
  EXPECT_NE(draw_compute_ms(r, 7, 0, 0) * 1000 + draw_compute_ms(r, 7, 0, 1),
            draw_compute_ms(r, 8, 0, 0) * 1000 + draw_compute_ms(r, 8, 0, 1));
  EXPECT_EQ(draw_compute_ms({40, 40}, 1, 3, 5), 40);
}

TEST(Stragglers, ParseAndRefuseNonsense) {
  const Stragglers c2 = parse_stragglers("10%:4");
  EXPECT_DOUBLE_EQ(c2.share, 0.1);
  EXPECT_DOUBLE_EQ(c2.factor, 4);
  EXPECT_DOUBLE_EQ(parse_stragglers("0.04:2").share, 0.04);
  for (const char* bad : {"", "10%", "10%:", ":2", "10%:0.5", "150%:2", "-1%:2", "10%:2x", "x:2"})
    EXPECT_THROW(parse_stragglers(bad), std::invalid_argument) << bad;
  EXPECT_EQ(check_workload_setting("stragglers", "4%:2"), "");
  EXPECT_NE(check_workload_setting("stragglers", "4%"), "");
  // Inside Gaia's data centers: BSP, or SSP with a bound of 1-100 clocks.
  EXPECT_EQ(check_workload_setting("gaia-local", "bsp"), "");
  EXPECT_EQ(check_workload_setting("gaia-local", "ssp:3"), "");
  for (const char* bad : {"ssp", "ssp:0", "ssp:101", "ssp:x", "asp"})
    EXPECT_NE(check_workload_setting("gaia-local", bad), "") << bad;
  // What Gaia's t counts, and WSP's delta, which may be none.
  EXPECT_EQ(check_workload_setting("gaia-t", "pass"), "");
  EXPECT_EQ(check_workload_setting("gaia-t", "clock"), "");
  EXPECT_NE(check_workload_setting("gaia-t", "epoch"), "");
  EXPECT_EQ(check_workload_setting("staleness", "none"), "");
  EXPECT_EQ(check_workload_setting("staleness", "16"), "");
  EXPECT_NE(check_workload_setting("staleness", "-1"), "");
  EXPECT_NE(check_workload_setting("staleness", "inf"), "");
  EXPECT_EQ(check_workload_setting("target-rule", "long-run"), "");
}

TEST(Stragglers, SlowTheirShareOfClocksByTheFactorAndNothingElse) {
  // MLfabric's C2: 10% of a worker's iterations 4x slower.
  const Stragglers c2{0.1, 4};
  const ComputeRange r{100, 100};
  int slowed = 0;
  constexpr int kClocks = 4000;
  for (int node = 0; node < 4; ++node) {
    for (uint64_t clock = 0; clock < kClocks / 4; ++clock) {
      const int ms = local_compute_ms(r, 7, node, 1, clock, 1.0, c2);
      EXPECT_TRUE(ms == 100 || ms == 400) << ms;
      slowed += ms == 400;
      EXPECT_EQ(ms == 400, draw_straggler(c2, 7, node, clock));
    }
  }
  // Binomial: 4,000 clocks at 0.1 have a standard deviation of 0.0047; 0.02 is 4.2 of them.
  EXPECT_NEAR(slowed / double{kClocks}, 0.1, 0.02);
  // Without stragglers the draws are the ones a run had before.
  EXPECT_EQ(local_compute_ms({100, 200}, 7, 2, 1, 9), draw_compute_ms({100, 200}, 7, 2, 9));
  EXPECT_FALSE(draw_straggler({}, 7, 2, 9));
}

TEST(WorkloadSettings, CheckEachKey) {
  EXPECT_EQ(check_workload_setting("strategy", "netstorm-pro"), "");
  EXPECT_NE(check_workload_setting("strategy", "star").find("known: ps, bkt"), std::string::npos);
  EXPECT_EQ(check_workload_setting("model", "logreg"), "");
  EXPECT_EQ(check_workload_setting("model", "vgg16"), "");
  EXPECT_NE(check_workload_setting("model", "bert"), "");
  // NetStorm's auxiliary-path knobs (Table II), so a scenario can sweep Fig. 17's grid.
  EXPECT_EQ(check_workload_setting("primary-busy-bound", "2"), "");
  EXPECT_EQ(check_workload_setting("aux-queue-length", "5"), "");
  EXPECT_NE(check_workload_setting("aux-queue-length", "0"), "");
  EXPECT_EQ(check_workload_setting("scale", "0.25"), "");
  EXPECT_NE(check_workload_setting("scale", "0"), "");
  EXPECT_NE(check_workload_setting("iterations", "0"), "");
  EXPECT_EQ(check_workload_setting("chunk", "32768"), "");
  EXPECT_NE(check_workload_setting("update-time", "soon"), "");
  EXPECT_EQ(check_workload_setting("compute-ms", "50-80"), "");
}

TEST(WorkloadSettings, TheProfileCarriesThemIntoTheModel) {
  const Topology t = parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml");
  EXPECT_EQ(t.workload.at("strategy"), "netstorm");
  EXPECT_EQ(t.workload.at("model"), "resnet50");
  EXPECT_EQ(t.workload.count("chunk"), 0u);  // left to the default
}

}  // namespace
}  // namespace testbed
