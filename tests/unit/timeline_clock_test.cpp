// The timeline's shared time zero (`up --start-at`): the slices of a lab spread over hosts
// place their schedules on the wall clock, which chrony or PTP keep the same everywhere.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "controller/dynamics/timeline.h"
#include "controller/lab/applier.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "netns/fake_kernel.h"

namespace testbed {
namespace {

struct NoDelayLines : DelayLineControl {
  void set_delay(const std::string&, uint16_t, int64_t, int64_t) override {}
};

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TEST(TimelineClock, TheSharedZeroIsPlacedOnTheMonotonicClock) {
  // Now is 100 s on the wall clock and 5 s on the monotonic one.
  EXPECT_EQ(monotonic_zero_ns(100.5, 100'000'000'000, 5'000'000'000), 5'500'000'000);
  EXPECT_EQ(monotonic_zero_ns(99.0, 100'000'000'000, 5'000'000'000), 4'000'000'000);
  EXPECT_EQ(monotonic_zero_ns(100.0, 100'000'000'000, 5'000'000'000), 5'000'000'000);
}

// Two hosts' timelines started apart, given one time zero, put it at the same wall-clock
// instant and apply nothing before its time: the lower bounds hold however loaded the
// machine is; how late a change comes is the lag timeline.csv reports.
TEST(TimelineClock, TimelinesStartedApartShareTheirTimeZeroAndNeverChangeEarly) {
  const Plan plan = make_plan(
      parse_profile_text("lab: tc\nnodes: {a: {}, b: {}}\nlinks:\n  - endpoints: [a, b]\n"
                         "    bandwidth: 100mbit\n    a2b:\n      schedule:\n        steps:\n"
                         "          - {at: 0s, bandwidth: 80mbit}\n"
                         "          - {at: 200ms, bandwidth: 20mbit}\n",
                         "tc.yaml"),
      false);
  const double start_at = unix_now() + 0.3;
  std::vector<std::string> starts;
  for (int host = 0; host < 2; ++host) {
    FakeKernel kernel;
    Applier(kernel).apply(plan);
    NoDelayLines lines;
    LinkChanger changer(kernel, lines, ImpairmentBackend::kDelayLine);
    const std::string dir = testing::TempDir() + "/tb-timeline-clock-" + std::to_string(host);
    std::filesystem::create_directories(dir);
    std::filesystem::remove(dir + "/timeline.csv");
    const std::atomic<bool> stop{false};
    if (host == 1) std::this_thread::sleep_for(std::chrono::milliseconds(100));  // started later
    Timeline(live_directions(plan_from_json(plan_to_json(plan)), CurrentLinks{}), changer,
             {1.0, dir, start_at, {}}, stop)
        .run();
    EXPECT_GE(unix_now(), start_at + 0.2) << "host " << host << " changed the link early";
    EXPECT_EQ(kernel.shaping("tb-tc-a", "tb0-b")->config.rate_bytes_per_s, 2'500'000u);
    std::ifstream in(dir + "/timeline-start");
    std::string s;
    in >> s;
    starts.push_back(s);
    std::ifstream csv(dir + "/timeline.csv");
    std::string header, row;
    std::getline(csv, header);
    std::getline(csv, row);
    EXPECT_EQ(row.substr(0, row.find(',')), "0.200000") << row;
    std::filesystem::remove_all(dir);
  }
  // Both wrote the shared zero, to the microsecond, not their own start.
  EXPECT_NEAR(std::stod(starts[0]), start_at, 1e-6);
  EXPECT_EQ(starts[0], starts[1]);
}

}  // namespace
}  // namespace testbed
