// The delay line's account of the host's stalls (netns/host_stall.h).
#include "netns/host_stall.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

TEST(HostStallClock, TimeNeitherWorkedNorSleptIsTheHosts) {
  HostStallClock clock(1000, 50);
  // 1 ms asked and slept, 0.2 ms of our work: nothing taken.
  EXPECT_EQ(clock.end_turn(2200, 250, 1000, 0), 0);
  // 3 ms of wall time, 1 ms slept, 0.5 ms worked: 1.5 ms taken.
  EXPECT_EQ(clock.end_turn(5200, 750, 1000, 0), 1500);
}

TEST(HostStallClock, CpuChargedWhileAsleepIsNotOurWork) {
  HostStallClock clock(0, 0);
  // Asked 0.2 ms, woke 6 ms later having been charged 5.6 ms in the sleep (interrupts, a
  // host's faults) and 0.1 ms after it: the 5.7 ms beyond our work and sleep are the host's.
  EXPECT_EQ(clock.end_turn(6000, 5700, 200, 5600), 5700);
}

TEST(HostStallClock, TheAccountHasNoGapBetweenTurns) {
  HostStallClock clock(0, 0);
  EXPECT_EQ(clock.end_turn(1000, 100, 900, 0), 0);
  // Between that turn's end and this one's sleep the verdicts ran 0.1 ms and the host took
  // 4 ms, then it slept 0.5 ms and drained 0.1 ms: this turn's releases carry that stall.
  EXPECT_EQ(clock.end_turn(5700, 300, 500, 0), 4000);
}

TEST(HostStallClock, NeverNegative) {
  HostStallClock clock(0, 0);
  EXPECT_EQ(clock.end_turn(100, 100, 100, 0), 0);  // clocks read in different orders
}

}  // namespace
}  // namespace testbed
