#include "controller/topology/schedule.h"

#include <gtest/gtest.h>

#include <map>

#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "tests/support/source_paths.h"
#include "validation_errors.h"

namespace testbed {
namespace {

const std::string kData = TESTBED_TEST_DATA;

Topology parse(const std::string& link_extra, const std::string& file = kData + "/inline.yaml") {
  return parse_profile_text(
      "lab: s\nseed: 7\nnodes: {a: {}, b: {}}\nlinks:\n  - endpoints: [a, b]\n" + link_extra, file);
}

std::vector<std::string> errors_of(const std::string& link_extra) {
  return validation_errors([&] { parse(link_extra); });
}

TEST(Schedule, StepsApplyInOrderAndSetTheInitialRate) {
  const Topology t = parse(
      "    schedule:\n      steps:\n        - {at: 0s, bandwidth: 155mbit}\n"
      "        - {at: 10s, bandwidth: 20mbit, delay: 50ms, loss: 1%}\n");
  const Schedule& s = t.links[0].a2b.schedule;
  ASSERT_EQ(s.kind, Schedule::Kind::kSteps);
  EXPECT_EQ(t.links[0].a2b.rate.bits_per_s, 155000000u);  // no static bandwidth needed
  const auto c = schedule_changes(s, 0, 1, 60000000);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].at_us, 10000000);
  EXPECT_EQ(c[0].rate->bits_per_s, 20000000u);
  EXPECT_EQ(c[0].delay->us, 50000);
  EXPECT_DOUBLE_EQ(c[0].loss->value, 0.01);
  EXPECT_TRUE(schedule_impairs(s));
}

TEST(Schedule, RandomIsSeededDeterministicAndPerDirection) {
  const Topology t = parse("    schedule: {random: {every: 180s, bandwidth: 20mbit..155mbit}}\n");
  const Schedule& s = t.links[0].a2b.schedule;
  EXPECT_EQ(s.seed, 7u);  // the profile's seed
  const auto a2b = schedule_changes(s, direction_stream(0, false), 0, 180000000LL * 100);
  const auto again = schedule_changes(s, direction_stream(0, false), 0, 180000000LL * 100);
  const auto b2a = schedule_changes(s, direction_stream(0, true), 0, 180000000LL * 100);
  ASSERT_EQ(a2b.size(), 100u);
  EXPECT_EQ(a2b, again);
  EXPECT_NE(a2b, b2a);  // the two directions draw independently
  std::set<uint64_t> distinct;
  for (const auto& c : a2b) {
    EXPECT_EQ(c.at_us % 180000000, 0);
    EXPECT_GE(c.rate->bits_per_s, 20000000u);
    EXPECT_LE(c.rate->bits_per_s, 155000000u);
    EXPECT_EQ(c.rate->bits_per_s % 1000000, 0u);  // whole Mbit/s, as NetStorm draws them
    distinct.insert(c.rate->bits_per_s);
  }
  EXPECT_GT(distinct.size(), 50u);
  // Windows add up: expanding piecewise gives the same sequence as at once.
  auto first = schedule_changes(s, 0, 0, 9000000000LL);
  const auto second = schedule_changes(s, 0, 9000000000LL, 18000000000LL);
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_EQ(first, a2b);
  // Another seed, another sequence.
  Schedule other = s;
  other.seed = 8;
  EXPECT_NE(schedule_changes(other, 0, 0, 180000000LL * 100), a2b);
}

TEST(Schedule, RandomFromAList) {
  const Topology t =
      parse("    schedule: {random: {every: 1s, bandwidth: [20mbit, 155mbit], seed: 3}}\n");
  for (const auto& c : schedule_changes(t.links[0].b2a.schedule, 1, 0, 50000000)) {
    EXPECT_TRUE(c.rate->bits_per_s == 20000000u || c.rate->bits_per_s == 155000000u);
  }
}

TEST(Schedule, WeightedChoicesAreDrawnInProportionAndZeroNever) {
  // MLfabric's N1: every 5 s one of {1, 2.5, 3.3, 5, 10} (scaled to Mbit/s here) with
  // probabilities (0, 0, 0, 0.1, 0.9).
  const Topology t = parse(
      "    schedule: {random: {every: 5s, bandwidth: [1mbit, 2.5mbit, 3.3mbit, 5mbit, 10mbit], "
      "weights: [0, 0, 0, 0.1, 0.9]}}\n");
  const Schedule& s = t.links[0].a2b.schedule;
  ASSERT_EQ(s.weights.size(), 5u);
  EXPECT_EQ(schedule_from_json(schedule_to_json(s)), s);
  std::map<uint64_t, int> drawn;
  constexpr int kDraws = 20000;
  for (uint64_t stream : {0, 1})
    for (const auto& c : schedule_changes(s, stream, 0, int64_t{kDraws / 2} * 5000000))
      ++drawn[c.rate->bits_per_s];
  ASSERT_EQ(drawn.size(), 2u) << "zero weights are never drawn";
  // Binomial: 20,000 draws at 0.1 have a standard deviation of 0.0021; 0.01 is 4.7 of them.
  EXPECT_NEAR(drawn[5000000] / double{kDraws}, 0.1, 0.01);
  EXPECT_NEAR(drawn[10000000] / double{kDraws}, 0.9, 0.01);
  // Without weights a list draws as it did: uniformly, by the same sequence.
  const Topology u = parse("    schedule: {random: {every: 5s, bandwidth: [1mbit, 10mbit]}}\n");
  EXPECT_TRUE(u.links[0].a2b.schedule.weights.empty());
}

TEST(Schedule, BadWeightsAreRejectedWithPositions) {
  const std::string f = kData + "/inline.yaml";
  EXPECT_EQ(errors_of("    schedule: {random: {every: 1s, bandwidth: [1mbit, 2mbit], "
                      "weights: [1]}}\n"),
            std::vector<std::string>{
                f + ":6:72: weights: expected a list of 2 numbers, one per rate of 'bandwidth'"});
  EXPECT_EQ(errors_of("    schedule: {random: {every: 1s, bandwidth: [1mbit, 2mbit], "
                      "weights: [1, -2]}}\n"),
            std::vector<std::string>{f + ":6:76: weights: expected a number, zero or more"});
  EXPECT_EQ(errors_of("    schedule: {random: {every: 1s, bandwidth: [1mbit, 2mbit], "
                      "weights: [0, 0]}}\n"),
            std::vector<std::string>{f + ":6:72: weights: at least one must be greater than zero"});
  EXPECT_EQ(errors_of("    schedule: {random: {every: 1s, bandwidth: 1mbit..2mbit, "
                      "weights: [1, 1]}}\n"),
            std::vector<std::string>{
                f + ":6:70: weights: only with a list of rates in 'bandwidth', one weight per "
                    "rate"});
}

TEST(Schedule, CsvTraceLoopsWithItsPeriod) {
  const Topology t = parse("    schedule: {trace: {file: traces/good.csv}}\n");
  const Schedule& s = t.links[0].a2b.schedule;
  ASSERT_EQ(s.changes.size(), 3u);
  EXPECT_EQ(s.changes[1].at_us, 2500000);
  EXPECT_EQ(s.changes[2].rate->bits_per_s, 155000000u);
  EXPECT_EQ(s.period_us, 7500000);  // last entry plus the interval before it
  const auto c = schedule_changes(s, 0, 7500000, 15000000);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].at_us, 7500000);
  EXPECT_EQ(c[0].rate->bits_per_s, 100000000u);
}

TEST(Schedule, MahimahiTraceBecomesRatesPerBin) {
  const Topology t = parse(
      "    schedule: {trace: {file: traces/two_rates.mahimahi, format: mahimahi, bin: 1s}}\n");
  const Schedule& s = t.links[0].a2b.schedule;
  EXPECT_EQ(s.period_us, 2000000);
  ASSERT_EQ(s.changes.size(), 2u);
  // Two 1500-byte opportunities per ms are 24 Mbit/s; one is 12 (the first bin misses the
  // opportunities at 0 ms, and the last ms belongs to the second bin).
  EXPECT_NEAR(static_cast<double>(s.changes[0].rate->bits_per_s), 24e6, 0.1e6);
  EXPECT_NEAR(static_cast<double>(s.changes[1].rate->bits_per_s), 12e6, 0.1e6);
}

TEST(Schedule, BadSchedulesAreRejectedWithPositions) {
  const std::string f = kData + "/inline.yaml";
  EXPECT_EQ(errors_of("    bandwidth: 10mbit\n    schedule: {steps: []}\n"),
            std::vector<std::string>{f + ":7:23: schedule steps: expected a non-empty list of "
                                         "{at, bandwidth, delay, loss, state}"});
  EXPECT_EQ(
      errors_of("    bandwidth: 10mbit\n    schedule:\n      steps:\n"
                "        - {at: 5s, bandwidth: 10mbit}\n        - {at: 2s, bandwidth: 20mbit}\n"),
      std::vector<std::string>{f + ":10:16: schedule step: time goes backwards (or repeats): "
                                   "each 'at' must be later than the one before"});
  EXPECT_EQ(errors_of("    schedule: {steps: [{at: 0s, bandwidth: -20mbit}]}\n"),
            std::vector<std::string>{f + ":6:44: bandwidth: must not be negative"});
  EXPECT_EQ(errors_of("    bandwidth: 10mbit\n    schedule: {random: {every: 0s, bandwidth: "
                      "50mbit..20mbit}}\n"),
            (std::vector<std::string>{f + ":7:32: every: must be greater than zero",
                                      f + ":7:47: bandwidth: the range goes downwards"}));
}

TEST(Schedule, AStepMayCutTheDirectionAndRestoreIt) {
  const Topology t = parse(
      "    bandwidth: 10mbit\n    a2b:\n      schedule:\n        steps:\n"
      "          - {at: 5s, state: down}\n          - {at: 8s, state: up, bandwidth: 5mbit}\n");
  const auto c = schedule_changes(t.links[0].a2b.schedule, 0, 1, 60000000);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].down, std::optional<bool>(true));
  EXPECT_FALSE(c[0].rate);
  EXPECT_EQ(c[1].down, std::optional<bool>(false));
  EXPECT_EQ(c[1].rate->bits_per_s, 5000000u);
  EXPECT_EQ(t.links[0].b2a.schedule.kind, Schedule::Kind::kNone);  // one direction only
  EXPECT_FALSE(schedule_impairs(t.links[0].a2b.schedule));         // a cut is the sender's
  // Through the plan's JSON and back, as the timeline reads it.
  EXPECT_EQ(schedule_from_json(schedule_to_json(t.links[0].a2b.schedule)).changes,
            t.links[0].a2b.schedule.changes);
}

TEST(Schedule, APeriodicFlapIsDownForItsTimeEveryPeriodWindowByWindow) {
  const Topology t =
      parse("    bandwidth: 10mbit\n    schedule: {flap: {every: 10s, down_for: 2s}}\n");
  const Schedule& s = t.links[0].a2b.schedule;
  ASSERT_EQ(s.kind, Schedule::Kind::kFlap);
  const auto all = schedule_changes(s, 0, 0, 30000000);
  ASSERT_EQ(all.size(), 4u);  // down 10, up 12, down 20, up 22 (30 is outside the window)
  EXPECT_EQ(all[0].at_us, 10000000);
  EXPECT_EQ(all[0].down, std::optional<bool>(true));
  EXPECT_EQ(all[1].at_us, 12000000);
  EXPECT_EQ(all[1].down, std::optional<bool>(false));
  EXPECT_EQ(all[3].at_us, 22000000);
  // The timeline asks window by window: the windows' changes are the whole's.
  std::vector<ScheduleChange> windows;
  for (int64_t w = 0; w < 30000000; w += 3000000) {
    const auto part = schedule_changes(s, 0, w, w + 3000000);
    windows.insert(windows.end(), part.begin(), part.end());
  }
  EXPECT_EQ(windows, all);
  EXPECT_EQ(schedule_changes(schedule_from_json(schedule_to_json(s)), 0, 0, 30000000), all);
}

TEST(Schedule, ARandomFlapIsSeededPerDirectionWithItsMeans) {
  const Topology t = parse(
      "    bandwidth: 10mbit\n    schedule: {flap: {up_mean: 2s, down_mean: 500ms, seed: 9}}\n");
  const Schedule& s = t.links[0].a2b.schedule;
  const int64_t hour = 3600LL * 1000000;
  const auto changes = schedule_changes(s, 0, 0, hour);
  EXPECT_EQ(changes, schedule_changes(s, 0, 0, hour));  // the same seed, the same flaps
  EXPECT_NE(changes, schedule_changes(s, 1, 0, hour));  // the other direction: its own
  ASSERT_GT(changes.size(), 1000u);                     // about 1440 down-up cycles
  double up = 0, down = 0;
  int64_t last = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    EXPECT_EQ(*changes[i].down, i % 2 == 0) << i;  // down, up, down, ...
    (i % 2 == 0 ? up : down) += static_cast<double>(changes[i].at_us - last);
    last = changes[i].at_us;
  }
  const double cycles = static_cast<double>(changes.size() / 2);
  // Exponential means over ~1400 draws: within 10% (the standard error is 2.7%).
  EXPECT_NEAR(up / cycles / 1e6, 2.0, 0.2);
  EXPECT_NEAR(down / cycles / 1e6, 0.5, 0.05);
  // A window in the middle holds exactly the whole sequence's changes in it.
  const auto middle = schedule_changes(s, 0, hour / 2, hour / 2 + 60000000);
  std::vector<ScheduleChange> expected;
  for (const auto& c : changes)
    if (c.at_us >= hour / 2 && c.at_us < hour / 2 + 60000000) expected.push_back(c);
  EXPECT_EQ(middle, expected);
}

TEST(Schedule, BadFlapsAreRejectedWithPositions) {
  const std::string f = kData + "/inline.yaml";
  EXPECT_EQ(errors_of("    bandwidth: 10mbit\n    schedule: {flap: {every: 2s, down_for: 2s}}\n"),
            std::vector<std::string>{f + ":7:44: down_for: must be shorter than every (it would "
                                         "never be up)"});
  EXPECT_EQ(
      errors_of("    bandwidth: 10mbit\n    schedule: {flap: {every: 2s, up_mean: 1s}}\n"),
      std::vector<std::string>{f + ":7:22: schedule flap: either every and down_for (periodic) or "
                                   "up_mean and down_mean (random), not both"});
  EXPECT_EQ(
      errors_of("    bandwidth: 10mbit\n    schedule: {flap: {up_mean: 1s, down_mean: 10ms}}\n"),
      std::vector<std::string>{f + ":7:47: down_mean: at least 100ms"});
  EXPECT_EQ(errors_of("    bandwidth: 10mbit\n    schedule: {flap: {up_mean: 1s}}\n"),
            std::vector<std::string>{f + ":7:22: schedule flap: needs 'down_mean'"});
}

TEST(Schedule, BadStatesAreRejectedWithPositions) {
  const std::string f = kData + "/inline.yaml";
  const std::string steps = "    bandwidth: 10mbit\n    schedule:\n      steps:\n";
  EXPECT_EQ(errors_of(steps + "        - {at: 5s, state: off}\n"),
            std::vector<std::string>{f + ":9:27: state: expected down or up"});
  EXPECT_EQ(errors_of(steps + "        - {at: 5s, state: up}\n"),
            std::vector<std::string>{f + ":9:27: state: up, but the link is not down"});
  EXPECT_EQ(errors_of(steps + "        - {at: 5s, state: down}\n        - {at: 6s, state: down}\n"),
            std::vector<std::string>{f + ":10:27: state: down, but the link is down already "
                                         "(since an earlier step): overlapping down intervals"});
}

TEST(Schedule, TraceErrorsNameTheTraceFileAndLineAndWhereTheProfileRefersToIt) {
  const std::string f = kData + "/inline.yaml";
  const std::string trace = kData + "/traces/bad.csv";
  const auto errors =
      errors_of("    bandwidth: 10mbit\n    schedule: {trace: {file: traces/bad.csv}}\n");
  EXPECT_EQ(errors,
            (std::vector<std::string>{
                trace + ":2:3: rate: 'fast' is not a number followed by a unit",
                trace + ":4:1: expected 'time,rate'",
                trace + ":5:1: time goes backwards (or repeats): each line must be later than "
                        "the one before",
                f + ":7:30: trace '" + trace + "' has 3 errors (listed at their lines)"}));
  // A trace that cannot be read has no position of its own: the profile's is the one.
  EXPECT_EQ(errors_of("    bandwidth: 10mbit\n    schedule: {trace: {file: traces/none.csv}}\n"),
            std::vector<std::string>{f + ":7:30: trace '" + kData +
                                     "/traces/none.csv': cannot read the trace file"});
}

}  // namespace
}  // namespace testbed
