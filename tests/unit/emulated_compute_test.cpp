// A clock's emulated compute, waited or burnt on the CPU (agent/jobs/emulated_compute.h).
// Bounds are one-sided where the machine's load could only lengthen a figure.
#include "agent/jobs/emulated_compute.h"

#include <gtest/gtest.h>

#include <thread>

namespace testbed {
namespace {

using Clock = std::chrono::steady_clock;

TEST(EmulatedCompute, AWaitPassesWithoutBurningCpu) {
  EmulatedCompute c;
  const int64_t cpu0 = thread_cpu_ns();
  c.start();
  c.set_length(60);
  EXPECT_FALSE(c.finished());
  EXPECT_GT(c.timeout().count(), 0);
  EXPECT_LE(c.timeout().count(), 60);
  std::this_thread::sleep_for(c.timeout());
  while (!c.finished()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // The wait burnt next to nothing: far below the 60 ms it lasted.
  EXPECT_LT(thread_cpu_ns() - cpu0, 20'000'000);
}

TEST(EmulatedCompute, OnTheCpuItBurnsTheLengthInSlicesAndNeverWaits) {
  EmulatedCompute c(true);
  // Read before start(): CPU spent between start() and a later read counts toward the 30 ms,
  // so a read after it could come up a few microseconds short (CI saw 29.997 ms).
  const int64_t cpu0 = thread_cpu_ns();
  c.start();
  c.set_length(30);
  int slices = 0;
  while (!c.finished()) {
    ++slices;
    EXPECT_EQ(c.timeout().count(), 0);  // the loop comes straight back
  }
  // 30 ms of this thread's CPU time (load only stretches the wall time, never this), in
  // slices of at most 5 ms: at least six calls.
  EXPECT_GE(thread_cpu_ns() - cpu0, 30'000'000);
  EXPECT_GE(slices + 1, 6);
  // The real update counts toward the clock: CPU spent since start() is not burnt again.
  EmulatedCompute d(true);
  d.start();
  const int64_t spent0 = thread_cpu_ns();
  while (thread_cpu_ns() - spent0 < 10'000'000) {
  }
  d.set_length(10);
  EXPECT_TRUE(d.finished());
}

TEST(EmulatedCompute, ALengthOfZeroIsDoneAtOnceEitherWay) {
  for (bool cpu : {false, true}) {
    EmulatedCompute c(cpu);
    c.start();
    c.set_length(0);
    EXPECT_TRUE(c.finished()) << cpu;
  }
}

}  // namespace
}  // namespace testbed
