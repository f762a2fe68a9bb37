// A synchronous run's communication per iteration, from the workers' stamps.
#include "controller/training/clock_communication.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

constexpr int64_t kMs = 1000000;

TEST(ClockCommunication, FromTheLastUpdateComputedToTheLastWorkerHoldingTheModel) {
  // Clock 0: worker 1 computes last (at 300 ms); both hold clock 1's model by 450 ms.
  // Clock 1: both computed by 700 ms, the last started clock 2 at 720 ms. Worker 0 never
  // finished clock 2, so it counts no time.
  const std::vector<WorkerClockStamps> w = {
      {{0, 440 * kMs, 720 * kMs}, {100 * kMs, 600 * kMs, 900 * kMs}},
      {{0, 450 * kMs, 710 * kMs, 1000 * kMs}, {300 * kMs, 700 * kMs, 950 * kMs}},
  };
  const auto c = clock_communication_s(w);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_NEAR(c[0], 0.150, 1e-12);
  EXPECT_NEAR(c[1], 0.020, 1e-12);
  const auto j = communication_summary(c);
  EXPECT_EQ(j["clocks"], 2);
  EXPECT_NEAR(j["mean_s"].get<double>(), 0.085, 1e-12);
  EXPECT_NEAR(j["median_s"].get<double>(), 0.020, 1e-12);  // nearest rank: the 1st of 2
  EXPECT_NEAR(j["p90_s"].get<double>(), 0.150, 1e-12);
}

TEST(ClockCommunication, EachWorkerClocksComputeIsItsStartToItsUpdate) {
  // Worker 1 computed three clocks (100, 250, 240 ms); worker 0 two, its third not computed.
  const std::vector<WorkerClockStamps> w = {
      {{0, 440 * kMs, 720 * kMs}, {100 * kMs, 600 * kMs}},
      {{0, 450 * kMs, 710 * kMs}, {100 * kMs, 700 * kMs, 950 * kMs}},
  };
  const auto c = clock_compute_s(w);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_NEAR(c[0], 0.100, 1e-12);
  EXPECT_NEAR(c[1], 0.160, 1e-12);
  EXPECT_NEAR(c[4], 0.240, 1e-12);
}

TEST(ClockCommunication, AServersClockSplitsItIntoTheWayInAndTheWayOut) {
  const std::vector<WorkerClockStamps> w = {
      {{0, 440 * kMs, 720 * kMs}, {100 * kMs, 600 * kMs, 900 * kMs}},
      {{0, 450 * kMs, 710 * kMs, 1000 * kMs}, {300 * kMs, 700 * kMs, 950 * kMs}},
  };
  // Clock 0 took effect at the server at 380 ms, clock 1 at 705 ms.
  const ServerLegs legs = server_legs(w, {380 * kMs, 705 * kMs});
  ASSERT_EQ(legs.to_server_s.size(), 2u);
  EXPECT_NEAR(legs.to_server_s[0], 0.080, 1e-12);
  EXPECT_NEAR(legs.from_server_s[0], 0.070, 1e-12);
  EXPECT_NEAR(legs.to_server_s[1] + legs.from_server_s[1], clock_communication_s(w)[1], 1e-12);
}

TEST(ClockCommunication, NoClockWithoutEveryWorkersStamps) {
  EXPECT_TRUE(clock_communication_s({}).empty());
  EXPECT_TRUE(clock_communication_s({{{0}, {}}}).empty()) << "computed nothing";
  EXPECT_EQ(communication_summary({})["clocks"], 0);
  EXPECT_FALSE(communication_summary({}).contains("mean_s"));
}

}  // namespace
}  // namespace testbed
