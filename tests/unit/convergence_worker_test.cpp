// The routing convergence's own thread (controller/dynamics/convergence_worker.h): changes
// within the delay join one convergence, a change during a convergence asks for the next,
// drain() waits for what is due, and a failed convergence leaves the worker going. Only
// lower bounds on time are asserted: a loaded machine may run the thread late, never early.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "controller/dynamics/convergence_worker.h"

namespace testbed {
namespace {

using namespace std::chrono_literals;
using Clock = ConvergenceWorker::Clock;

TEST(ConvergenceWorker, ChangesWithinTheDelayJoinOneConvergenceAfterTheFirst) {
  std::atomic<bool> stop{false};
  std::vector<Clock::time_point> runs;
  std::mutex m;
  ConvergenceWorker w(
      [&] {
        std::lock_guard lock(m);
        runs.push_back(Clock::now());
      },
      [](const std::string&) {}, stop);
  // A delay long enough that no stall of a loaded machine separates the three calls by it.
  const auto first = Clock::now();
  w.changed(1s);
  w.changed(1s);  // joins: the delay counts from the first
  w.changed(1s);
  w.drain();
  std::lock_guard lock(m);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_GE(runs[0] - first, 1s);
  EXPECT_EQ(w.convergences(), 1u);
}

TEST(ConvergenceWorker, AChangeDuringAConvergenceAsksForTheNext) {
  std::atomic<bool> stop{false}, inside{false}, release{false};
  std::atomic<int> runs{0};
  ConvergenceWorker w(
      [&] {
        ++runs;
        inside = true;
        while (runs == 1 && !release) std::this_thread::sleep_for(1ms);
      },
      [](const std::string&) {}, stop);
  w.changed(0ms);
  while (!inside) std::this_thread::sleep_for(1ms);
  w.changed(10ms);  // made while the first runs: not in what it read
  release = true;
  w.drain();
  EXPECT_EQ(runs.load(), 2);
}

TEST(ConvergenceWorker, AFailedConvergenceIsReportedAndTheWorkerGoesOn) {
  std::atomic<bool> stop{false};
  std::atomic<int> runs{0};
  std::string error;
  ConvergenceWorker w(
      [&] {
        if (++runs == 1) throw std::runtime_error("replace_routes(10.0.0.0/24 in tbx-n1): EPERM");
      },
      [&](const std::string& what) { error = what; }, stop);
  w.changed(0ms);
  w.drain();
  EXPECT_NE(error.find("EPERM"), std::string::npos);
  w.changed(0ms);
  w.drain();
  EXPECT_EQ(runs.load(), 2);
}

TEST(ConvergenceWorker, TheStopEndsAWaitWithoutConverging) {
  std::atomic<bool> stop{false};
  std::atomic<int> runs{0};
  ConvergenceWorker w([&] { ++runs; }, [](const std::string&) {}, stop);
  w.changed(std::chrono::hours(1));
  std::thread stopper([&] {
    std::this_thread::sleep_for(50ms);
    stop = true;  // as the signal handler sets it: no notification
  });
  w.drain();  // returns once it sees the stop
  stopper.join();
  EXPECT_EQ(runs.load(), 0);
}

}  // namespace
}  // namespace testbed
