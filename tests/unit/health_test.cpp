// Emulation health without a lab: the delay line's lateness histogram and stats file, the
// CPU and backlog meters, the judged report, its metrics, and the monitor over a fake
// kernel. The real signals are exercised by the integration test (tests/integration/
// health_test.cpp): a light run judged healthy, an overloaded one flagged.
#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "controller/health/cpu_load.h"
#include "controller/health/health_monitor.h"
#include "controller/health/health_report.h"
#include "controller/health/link_backlog.h"
#include "controller/health/sample_spacing.h"
#include "controller/observe/health_metrics.h"
#include "controller/topology/units.h"
#include "netns/delay_line_stats.h"
#include "netns/delay_queue.h"
#include "netns/fake_kernel.h"
#include "netns/lateness_histogram.h"

namespace testbed {
namespace {

TEST(LatenessHistogram, QuantilesNeverUnderstateAndStayWithinAQuarterOctave) {
  LatenessHistogram h;
  for (int i = 0; i < 98; ++i) h.add(0);
  h.add(1000);
  h.add(5000);
  EXPECT_EQ(h.count(), 100u);
  EXPECT_EQ(h.quantile_us(0.5), 0);
  EXPECT_EQ(h.quantile_us(0.98), 0);
  // The 99th of 100 is the 1000 us release: its bucket's bound, at most 19% above.
  EXPECT_GE(h.quantile_us(0.99), 1000);
  EXPECT_LE(h.quantile_us(0.99), 1190);
  EXPECT_EQ(h.quantile_us(1.0), 5000);  // capped by the exact maximum
  EXPECT_EQ(h.max_us(), 5000);
  h.add(-20);  // released early (the release window) counts as on time
  EXPECT_EQ(h.quantile_us(0.5), 0);
}

TEST(LatenessHistogram, ARunIsTheDifferenceOfTwoSnapshots) {
  LatenessHistogram life;
  life.add(9000);  // before the run: not the run's
  const LatenessHistogram start = life;
  for (int i = 0; i < 10; ++i) life.add(100);
  const LatenessHistogram run = life.since(start);
  EXPECT_EQ(run.count(), 10u);
  EXPECT_GE(run.max_us(), 100);
  EXPECT_LE(run.max_us(), 119);  // the bucket's bound, not the lifetime's 9000
  life.add(20000);               // a new lifetime maximum is the run's, exactly
  EXPECT_EQ(life.since(start).max_us(), 20000);
  const LatenessHistogram back = LatenessHistogram::parse(life.format());
  EXPECT_EQ(back.count(), life.count());
  EXPECT_EQ(back.max_us(), 20000);
  EXPECT_EQ(back.quantile_us(0.5), life.quantile_us(0.5));
  EXPECT_THROW(LatenessHistogram::parse("7:x"), std::invalid_argument);
  EXPECT_THROW(LatenessHistogram::parse("400:1"), std::invalid_argument);
}

TEST(DelayQueue, RecordsLatenessAndReleasesWithinTheWindow) {
  DelayQueue q({1000, 0, false}, 1);
  q.admit(1, 0);    // due at 1000
  q.admit(2, 100);  // due at 1100
  q.admit(3, 500);  // due at 1500
  // At 1000 with a 200 us window, the two due by 1200 go together; the third waits.
  EXPECT_EQ(q.release_due(1000, 200), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.release_due(4500), (std::vector<uint32_t>{3}));  // 3 ms late
  EXPECT_EQ(q.lateness().count(), 3u);
  EXPECT_EQ(q.lateness().max_us(), 3000);
  EXPECT_EQ(q.lateness().quantile_us(0.6), 0);
  EXPECT_EQ(q.emulator_lateness().max_us(), 3000) << "no stall was reported";
}

TEST(DelayQueue, TheCallersWakeUpStallIsTheHostsPartOfTheLateness) {
  DelayQueue q({1000, 0, false}, 1);
  q.admit(1, 0);    // due at 1000
  q.admit(2, 200);  // due at 1200
  // The caller asked to wake at 1000 and woke at 3000: 2 ms of host stall. Packet 1 is
  // 2 ms late, all of it the host's; packet 2 is 1.8 ms late, also within the stall.
  EXPECT_EQ(q.release_due(3000, 0, 2000), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(q.lateness().max_us(), 2000);
  EXPECT_EQ(q.emulator_lateness().count(), 2u);
  EXPECT_EQ(q.emulator_lateness().max_us(), 0);
  q.admit(3, 2500);  // due at 3500, released at 6000 after a 500 us stall: 2 ms its own
  q.release_due(6000, 0, 500);
  EXPECT_EQ(q.lateness().max_us(), 2500);
  EXPECT_EQ(q.emulator_lateness().max_us(), 2000);
}

TEST(DelayQueue, AStallThatEndedBeforeTheReleaseIsStillTheHosts) {
  DelayQueue q({1000, 0, false}, 1);
  q.admit(1, 0);     // due at 1000
  q.admit(2, 4000);  // due at 5000
  // A stall of 7.5 ms, seen at 8500; both read and released at 9000. Packet 1: 8 ms late,
  // 7.5 ms of it the host's. Packet 2: 4 ms late, all of it the host's.
  EXPECT_EQ(q.release_due(9000, 0, 7500, 8500), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(q.lateness().max_us(), 8000);
  EXPECT_EQ(q.emulator_lateness().max_us(), 500);
  // A packet due after the stall ended owes it nothing.
  q.admit(3, 9000);  // due at 10000
  q.release_due(10700, 0, 7500, 8500);
  EXPECT_EQ(q.emulator_lateness().quantile_us(1.0), 700);
}

TEST(DelayLineStats, RoundTripsAndNamesABadLine) {
  LatenessHistogram h;
  h.add(12);
  const std::vector<DelayLineQueueStats> in = {{3, 1, 2, 5, h, {}}, {7, 0, 0, 0, {}, {}}};
  const auto out = parse_delay_line_stats(format_delay_line_stats(in));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].queue, 3);
  EXPECT_EQ(out[0].queue_dropped, 2u);
  EXPECT_EQ(out[0].user_dropped, 5u);
  EXPECT_EQ(out[0].lateness.max_us(), 12);
  EXPECT_EQ(out[0].emulator_lateness.count(), 0u);
  EXPECT_EQ(out[1].queue, 7);
  std::vector<DelayLineQueueStats> split = in;
  split[0].emulator_lateness.add(3);
  EXPECT_EQ(parse_delay_line_stats(format_delay_line_stats(split))[0].emulator_lateness.max_us(),
            3);
  // A delay line started by an older build has no emulator part: all of it counts.
  const auto old = parse_delay_line_stats(
      "queue 1 released 1 queue_dropped 0 user_dropped 0 lateness 40:1 max:900\n");
  EXPECT_EQ(old[0].emulator_lateness.max_us(), 900);
  try {
    parse_delay_line_stats(
        "queue 1 released 2 queue_dropped 0 user_dropped 0 lateness max:0\n"
        "queue x\n");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(DelayLineStats, ADatagramHoldsEachNodesAnswerAfterItsSocketsName) {
  LatenessHistogram h;
  h.add(40);
  const std::string a = format_delay_line_stats({{1, 4, 0, 0, h, {}}});
  const std::string b = format_delay_line_stats({{2, 0, 0, 0, {}, {}}, {3, 0, 0, 0, {}, {}}});
  const auto sections = split_stats_sections(std::string(kStatsSection) + "delayline-n1.sock\n" +
                                             a + kStatsSection + "delayline-n2.sock\n" + b);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].first, "delayline-n1.sock");
  EXPECT_EQ(parse_delay_line_stats(sections[0].second)[0].lateness.max_us(), 40);
  EXPECT_EQ(sections[1].first, "delayline-n2.sock");
  EXPECT_EQ(parse_delay_line_stats(sections[1].second).size(), 2u);
  // A node with no queues answers nothing after its name.
  EXPECT_TRUE(split_stats_sections("from delayline-n3.sock\n")[0].second.empty());
  // What a peer sends is not trusted: text before any section, or a section without a name.
  EXPECT_THROW(split_stats_sections(a), std::invalid_argument);
  EXPECT_THROW(split_stats_sections("from \n" + a), std::invalid_argument);
  EXPECT_TRUE(split_stats_sections("").empty());
}

TEST(DelayLineStats, ReadsTheKernelsQueueTable) {
  // As /proc/net/netfilter/nfnetlink_queue prints it (seq_printf "%5u %6u %5u %1u %5u ...").
  const auto t = parse_nfqueue_table(
      "    0  12345     0 2 65531     0     0    88231  1\n"
      "    4  12346    17 2 65531     9     3      412  1\n");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.at(4).queue_dropped, 9u);
  EXPECT_EQ(t.at(4).user_dropped, 3u);
  EXPECT_EQ(t.at(0).queue_dropped, 0u);
}

TEST(CpuLoad, IdleAndIowaitAreIdleAndSaturationIsPerInterval) {
  const auto a = parse_proc_stat("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->total, 1000u);
  EXPECT_EQ(a->busy, 150u);
  EXPECT_FALSE(parse_proc_stat("intr 1 2 3\n"));
  CpuSaturation s;
  s.add({0, 0}, {40, 40});      // all busy: saturated
  s.add({40, 40}, {79, 80});    // 97.5%: saturated
  s.add({79, 80}, {99, 120});   // 50%
  s.add({99, 120}, {99, 120});  // no tick passed: not an interval
  EXPECT_EQ(s.intervals(), 3u);
  EXPECT_NEAR(s.saturated_share(), 2.0 / 3, 1e-9);
  EXPECT_NEAR(s.busy_quantile(0.5), 0.975, 1e-9);
}

TEST(BacklogMeter, JudgesTheBestIntervalsOfThoseBackloggedAtBothEnds) {
  BacklogMeter m;
  const uint64_t rate = 1'000'000;  // bytes/s: 200 KB per 200 ms interval
  m.add({0.0, 0, 0, rate});
  m.add({0.2, 100'000, 5'000, rate});      // nothing queued at the start: not backlogged
  m.add({0.4, 300'000, 5'000, rate});      // backlogged: 200 KB of 200 KB
  m.add({0.6, 400'000, 5'000, rate});      // backlogged, but it idled inside: 100 KB
  m.add({0.8, 600'000, 5'000, rate * 2});  // the rate changed: not judged
  EXPECT_NEAR(m.observed_s(), 0.8, 1e-9);
  EXPECT_NEAR(m.backlogged_s(), 0.4, 1e-9);
  EXPECT_FALSE(m.rate_ratio()) << "two intervals say little";
  // Eight more at the new rate: seven at 0.9 (a slow shaper), one at 0.5 (an idle gap).
  uint64_t sent = 600'000;
  for (int i = 5; i <= 12; ++i) {
    sent += i == 7 ? 200'000 : 360'000;
    m.add({0.2 * i, sent, 5'000, rate * 2});
  }
  ASSERT_TRUE(m.rate_ratio());
  // Ratios 1.0, 0.5, 0.5 and 0.9 x 7: the 90th percentile of ten is the 9th, 0.9.
  EXPECT_NEAR(*m.rate_ratio(), 0.9, 1e-9);
  EXPECT_NEAR(*m.mean_ratio(), (300'000.0 + 7 * 360'000 + 200'000) / (400'000 + 8 * 400'000), 1e-9);
}

// Bursts at the interval's period (docs/intellect1.md, link_backlog.h): the queue holds a
// chunk at each sample and drains in between. A look inside that finds it drained leaves
// the interval out; a starved shaper's queue, full at every look, is judged as before.
TEST(BacklogMeter, AnIntervalWhoseQueueDrainedInsideIsNotBacklogged) {
  const uint64_t rate = 1'000'000;  // 200 KB per 200 ms interval
  BacklogMeter bursts, starved;
  uint64_t sent = 0;
  bursts.add({0.0, 0, 50'000, rate});
  starved.add({0.0, 0, 50'000, rate});
  for (int i = 1; i <= 10; ++i) {
    EXPECT_TRUE(bursts.backlogged_now());
    bursts.probe(50'000);
    bursts.probe(0);  // drained between two chunks
    bursts.probe(0);
    starved.probe(50'000);
    starved.probe(50'000);
    starved.probe(50'000);
    sent += 70'000;  // 35% of the rate
    bursts.add({0.2 * i, sent, 50'000, rate});
    starved.add({0.2 * i, sent, 50'000, rate});
  }
  EXPECT_EQ(bursts.backlogged_s(), 0);
  EXPECT_FALSE(bursts.rate_ratio());
  EXPECT_NEAR(bursts.observed_s(), 2.0, 1e-9);
  ASSERT_TRUE(starved.rate_ratio());
  EXPECT_NEAR(*starved.rate_ratio(), 0.35, 1e-9);
  // A probe counts for the interval under way only: the next one is judged on its own.
  bursts.probe(0);
  bursts.add({2.2, sent + 200'000, 50'000, rate});
  bursts.add({2.4, sent + 400'000, 50'000, rate});
  EXPECT_NEAR(bursts.backlogged_s(), 0.2, 1e-9);
  BacklogMeter idle;
  idle.add({0.0, 0, 0, rate});
  EXPECT_FALSE(idle.backlogged_now());  // no look is spent on an idle direction
}

TEST(BacklogMeter, CountsWhatTheDirectionCarriedAndItsBusiestInterval) {
  BacklogMeter m;
  const uint64_t rate = 1'000'000;
  m.add({0.0, 1'000, 0, rate});    // the counter before the run: not the run's
  m.add({0.2, 21'000, 0, rate});   // 100 KB/s, idle queue: carried all the same
  m.add({0.4, 201'000, 0, rate});  // 900 KB/s: the peak
  m.add({0.5, 251'000, 0, rate});  // 500 KB/s in a shorter interval
  m.add({0.4, 0, 0, rate});        // time or the counter went back: skipped
  EXPECT_EQ(m.sent_bytes(), 250'000u);
  EXPECT_NEAR(m.peak_bytes_per_s(), 900'000, 1e-6);
}

TEST(BacklogMeter, APacketOrTwoQueuedIsNotABacklog) {
  BacklogMeter m;
  const uint64_t rate = 1'000'000;
  // Small messages on an idle link: one packet waiting at every look, little sent.
  for (int i = 0; i <= 20; ++i) m.add({0.2 * i, 1'000 * static_cast<uint64_t>(i), 1'514, rate});
  EXPECT_EQ(m.backlogged_s(), 0);
  EXPECT_FALSE(m.rate_ratio());
  // Three frames waiting at both ends: a backlog, judged.
  BacklogMeter q;
  for (int i = 0; i <= 20; ++i) q.add({0.2 * i, 1'000 * static_cast<uint64_t>(i), 4'542, rate});
  ASSERT_TRUE(q.rate_ratio());
  EXPECT_NEAR(*q.rate_ratio(), 1'000.0 / 200'000, 1e-9);
}

// A report of one direction whose 100 packets were each `late_us` late, `stalled_us` of
// it the host's.
HealthReport report_with(int64_t late_us, std::optional<double> ratio, double saturated,
                         int64_t stalled_us = 0) {
  HealthReport r;
  r.cpu_saturated_share = saturated;
  r.cpu_intervals = 10;
  DirectionHealth d;
  d.from = "a";
  d.to = "b";
  for (int i = 0; i < 100; ++i) {
    d.lateness.add(late_us);
    d.emulator_lateness.add(late_us - stalled_us);
  }
  d.delayed_packets = 100;
  d.rate_measured = true;
  d.rate_judged = true;
  d.observed_s = 10;
  d.backlogged_s = 5;
  d.rate_ratio = ratio;
  r.directions.push_back(d);
  return r;
}

TEST(HealthReport, EachThresholdIsItsOwnProblem) {
  EXPECT_TRUE(report_with(50, 0.98, 0.1).healthy());
  EXPECT_TRUE(report_with(50, std::nullopt, 0.1).healthy()) << "an unjudged link is no problem";
  auto lossy = report_with(50, 0.5, 0.1);
  lossy.directions[0].rate_judged = false;  // a lossy link: reported, not judged
  EXPECT_TRUE(lossy.healthy());
  EXPECT_FALSE(lossy.min_rate_ratio());
  const auto late = report_with(2000, 0.98, 0.1);
  ASSERT_EQ(late.problems().size(), 1u);
  EXPECT_NE(late.problems()[0].find("p99"), std::string::npos);
  const auto slow = report_with(50, 0.8, 0.1);
  ASSERT_EQ(slow.problems().size(), 1u);
  EXPECT_NE(slow.problems()[0].find("a->b 80%"), std::string::npos) << slow.problems()[0];
  const auto busy = report_with(50, 0.98, 0.7);
  ASSERT_EQ(busy.problems().size(), 1u);
  EXPECT_EQ(busy.warning().rfind("emulation unhealthy: CPUs saturated 70%", 0), 0u)
      << busy.warning();
  auto dropped = report_with(50, 0.98, 0.1);
  dropped.directions[0].nfqueue_dropped = 4;
  EXPECT_FALSE(dropped.healthy());
  const auto j = report_with(2000, 0.8, 0.7).to_json();
  EXPECT_FALSE(j["healthy"].get<bool>());
  EXPECT_EQ(j["problems"].size(), 3u);
  EXPECT_GE(j["release_lateness_ms"]["p99"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["min_backlogged_rate_ratio"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(j["directions"][0]["backlogged_share"].get<double>(), 0.5);
  EXPECT_TRUE(j["notes"].empty()) << "late by the emulator's own doing: no host to blame";
}

TEST(HealthReport, TheHostsStallsAreANoteNotAProblem) {
  const auto stalled = report_with(5000, 0.98, 0.1, 4900);
  EXPECT_TRUE(stalled.healthy()) << stalled.warning();
  EXPECT_EQ(stalled.warning(), "");
  ASSERT_EQ(stalled.notes().size(), 1u);
  EXPECT_EQ(stalled.note_line().rfind("emulation note: the host stalled the delay lines", 0), 0u)
      << stalled.note_line();
  const auto j = stalled.to_json();
  EXPECT_GE(j["release_lateness_ms"]["p99"].get<double>(), 4.9);
  EXPECT_LE(j["emulator_lateness_ms"]["p99"].get<double>(), 0.12);  // 100 us, bucket-rounded
  // Stalled, and late beyond the stalls too: a problem, and the note still says why the
  // whole is later than the emulator's part.
  const auto both = report_with(5000, 0.98, 0.1, 2000);
  ASSERT_EQ(both.problems().size(), 1u);
  EXPECT_NE(both.problems()[0].find("not counting the host's stalls"), std::string::npos);
  EXPECT_EQ(both.notes().size(), 1u);
  EXPECT_EQ(report_with(50, 0.98, 0.1).note_line(), "") << "on time: nothing to note";
}

TEST(HealthMetrics, AHealthEventBecomesGauges) {
  prometheus::Registry registry;
  HealthMetrics m(registry, "lab1");
  nlohmann::json event = report_with(2000, 0.8, 0.7).to_json();
  event["event"] = "health";
  event["strategy"] = "ps";
  m.apply(event);
  m.apply({{"event", "iteration"}});  // not ours: ignored
  const std::string text = prometheus::TextSerializer().Serialize(registry.Collect());
  EXPECT_NE(text.find(R"(testbed_health_healthy{lab="lab1",strategy="ps"} 0)"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(testbed_health_backlogged_rate_ratio{lab="lab1",node="a",peer="b",)"
                      R"(strategy="ps"} 0.8)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(testbed_health_cpu_saturated_ratio{lab="lab1",strategy="ps"} 0.7)"),
            std::string::npos);
  for (const char* part : {"all", "emulator"})
    EXPECT_NE(
        text.find(std::string("testbed_health_release_lateness_seconds{lab=\"lab1\",part=\"") +
                  part + "\",statistic=\"p99\""),
        std::string::npos)
        << text;
}

TEST(HealthMonitor, SamplesEveryShapedDirectionOfAFakeLab) {
  auto kernel = std::make_unique<FakeKernel>();
  kernel->create_namespace("tbx-a");
  kernel->create_veth("tbx-a", "eth0", "tbx-a", "eth1");
  RateShaping shaping;
  shaping.rate_bytes_per_s = 1000;
  kernel->set_shaping("tbx-a", "eth0", shaping);
  LiveDirection d;
  d.from = "a";
  d.to = "b";
  d.ns = "tbx-a";
  d.dev = "eth0";
  HealthMonitor monitor(std::move(kernel), "/nonexistent", {d});
  monitor.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  const HealthReport r = monitor.stop();
  ASSERT_EQ(r.directions.size(), 1u);
  EXPECT_TRUE(r.directions[0].rate_measured);
  EXPECT_GT(r.directions[0].observed_s, 0);
  EXPECT_FALSE(r.directions[0].rate_ratio) << "never backlogged";
  EXPECT_EQ(r.directions[0].delayed_packets, 0u) << "no delay line";
  EXPECT_TRUE(r.healthy() || r.cpu_saturated_share > 0.5);
}

// A sample costs what the lab's directions cost to read; past a tenth of the time between
// samples they are spaced out, so that the monitor does not hold the CPUs it judges, up to
// 2 s apart.
TEST(HealthMonitor, SamplesAreSpacedOutToTenTimesWhatTheLastOneTook) {
  using std::chrono::milliseconds;
  EXPECT_EQ(HealthMonitor::sample_period(std::chrono::microseconds(300)), milliseconds(200));
  EXPECT_EQ(HealthMonitor::sample_period(milliseconds(20)), milliseconds(200));
  EXPECT_EQ(HealthMonitor::sample_period(milliseconds(21)), milliseconds(210));
  EXPECT_EQ(HealthMonitor::sample_period(std::chrono::microseconds(25001)), milliseconds(251));
  EXPECT_EQ(HealthMonitor::sample_period(milliseconds(150)), milliseconds(1500));
  // Never more than 2 s apart, whatever a sample costs: saturation is judged per interval.
  EXPECT_EQ(HealthMonitor::sample_period(milliseconds(250)), milliseconds(2000));
  EXPECT_EQ(HealthMonitor::sample_period(std::chrono::seconds(4)), milliseconds(2000));
}

// The exporter's rule (cmd_exporter.cpp): ten times a sample's CPU, 1 to 10 s apart.
TEST(SampleSpacing, TenTimesTheCostWithinTheExportersBounds) {
  using std::chrono::milliseconds;
  const auto exporter = [](std::chrono::nanoseconds took) {
    return spaced_by_cost(took, 10, milliseconds(1000), milliseconds(10000));
  };
  EXPECT_EQ(exporter(milliseconds(15)), milliseconds(1000));  // 1000 nodes: every second
  EXPECT_EQ(exporter(std::chrono::microseconds(400100)), milliseconds(4001));
  EXPECT_EQ(exporter(std::chrono::seconds(3)), milliseconds(10000));
}

TEST(FormatFactor, PrintsTheFactorAsWritten) {
  EXPECT_EQ(format_factor(0.25), "0.25");
  EXPECT_EQ(format_factor(0.1), "0.1");
  EXPECT_EQ(format_factor(1e-3), "0.001");
  EXPECT_EQ(format_factor(2), "2");
}

}  // namespace
}  // namespace testbed
