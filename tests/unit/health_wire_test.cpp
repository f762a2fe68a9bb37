// A run's health across hosts (controller/health/health_wire.*): another host's report
// crosses whole, is checked field by field, and joins this host's to be judged as one box's.
#include <gtest/gtest.h>

#include <string>

#include "controller/health/health_wire.h"

namespace testbed {
namespace {

DirectionHealth direction(const std::string& from, const std::string& to, double rate_ratio) {
  DirectionHealth d;
  d.from = from;
  d.to = to;
  d.link = 3;
  d.delayed_packets = 120;
  for (int us : {0, 10, 250, 1500}) d.lateness.add(us);
  d.emulator_lateness.add(5);
  d.rate_measured = true;
  d.rate_judged = true;
  d.observed_s = 10;
  d.backlogged_s = 4;
  d.rate_ratio = rate_ratio;
  d.shaper_drops = 7;
  d.sent_bytes = 1'250'000;
  d.peak_bytes_per_s = 500'000;
  return d;
}

HealthReport report(double cpu_saturated, std::vector<DirectionHealth> dirs) {
  HealthReport r;
  r.duration_s = 12.5;
  r.sample_period_s = 1.5;  // a large lab's samples, spaced out
  r.cpu_saturated_share = cpu_saturated;
  r.cpu_busy_p50 = 0.4;
  r.cpu_busy_p90 = 0.8;
  r.cpu_intervals = 60;
  r.directions = std::move(dirs);
  return r;
}

TEST(HealthWire, AReportCrossesWholeAndIsJudgedAlike) {
  HealthReport sent = report(0.1, {direction("a", "b", 0.99), direction("b", "a", 0.97)});
  sent.directions[1].mean_ratio.reset();
  const HealthReport got = health_from_wire(nlohmann::json::parse(health_to_wire(sent).dump()), 8);
  EXPECT_EQ(got.to_json(), sent.to_json());
  EXPECT_EQ(got.directions[0].lateness.format(), sent.directions[0].lateness.format());
}

TEST(HealthWire, EveryFieldIsCheckedBeforeAnythingIsKept) {
  const nlohmann::json good = health_to_wire(report(0.1, {direction("a", "b", 0.99)}));
  EXPECT_NO_THROW(health_from_wire(good, 1));
  EXPECT_THROW(health_from_wire(good, 0), std::invalid_argument);  // more directions than a lab's
  const auto refused = [&](auto change) {
    nlohmann::json j = good;
    change(j);
    EXPECT_THROW(health_from_wire(j, 8), std::invalid_argument) << j.dump();
  };
  refused([](auto& j) { j["duration_s"] = -1; });
  refused([](auto& j) { j["cpu_saturated_share"] = 1.5; });
  refused([](auto& j) { j["cpu_intervals"] = -3; });
  refused([](auto& j) { j.erase("directions"); });
  refused([](auto& j) { j = nlohmann::json::array(); });
  refused([](auto& j) { j["directions"][0]["from"] = ""; });
  refused([](auto& j) { j["directions"][0]["to"] = std::string(1000, 'x'); });
  refused([](auto& j) { j["directions"][0]["lateness"] = "nonsense"; });
  refused([](auto& j) { j["directions"][0]["lateness"] = "500:1"; });  // no bucket
  refused([](auto& j) { j["directions"][0]["lateness"] = "max:99999999999999999999"; });  // range
  refused([](auto& j) { j["directions"][0]["lateness"] = std::string(10000, ' '); });
  refused([](auto& j) { j["directions"][0]["rate_ratio"] = "high"; });
  refused([](auto& j) { j["directions"][0]["rate_judged"] = 1; });
  refused([](auto& j) { j["directions"][0]["shaper_drops"] = 0.5; });
}

// The lab's report: every host's directions, the worst host's CPU named in its problem;
// each host's own verdict beside it.
TEST(HealthWire, TheLabsReportHasEveryHostsLinksAndNamesTheWorstCpu) {
  const HealthReport mine = report(0.1, {direction("a", "b", 0.99), direction("b", "a", 0.98)});
  const std::map<std::string, HealthReport> others = {
      {"host2", report(0.7, {direction("c", "d", 0.5)})},
      {"host3", report(0.2, {direction("e", "f", 0.95)})}};
  const HealthReport lab = merge_host_health(mine, "host1", others);
  EXPECT_EQ(lab.directions.size(), 4u);
  EXPECT_EQ(lab.cpu_host, "host2");
  EXPECT_DOUBLE_EQ(lab.cpu_saturated_share, 0.7);
  const auto problems = lab.problems();
  ASSERT_EQ(problems.size(), 2u) << lab.warning();
  EXPECT_NE(problems[0].find("c->d 50%"), std::string::npos) << problems[0];
  EXPECT_EQ(problems[1], "host host2's CPUs saturated 70% of the run");
  EXPECT_EQ(lab.to_json()["cpu_host"], "host2");

  const nlohmann::json by_host = health_by_host(mine, "host1", others);
  EXPECT_EQ(by_host["host1"]["healthy"], true);
  EXPECT_EQ(by_host["host2"]["healthy"], false);
  EXPECT_EQ(by_host["host3"]["directions"], 1);
  // On one box nothing changes: no host named.
  EXPECT_FALSE(mine.to_json().contains("cpu_host"));
}

// A link between hosts is shaped on its sender's host and delayed on its receiver's: the
// lab's report holds each direction once, its rate from the one, its lateness from the
// other.
TEST(HealthWire, ADirectionBetweenHostsIsOneDirectionWithBothHalves) {
  DirectionHealth sent = direction("a", "b", 0.5);  // host1 sends: rate measured
  sent.delayed_packets = 0;
  sent.lateness = {};
  sent.emulator_lateness = {};
  DirectionHealth received = direction("a", "b", 0.99);  // host2 receives: delay line
  received.rate_measured = received.rate_judged = false;
  received.rate_ratio.reset();
  received.observed_s = received.backlogged_s = 0;
  const HealthReport lab =
      merge_host_health(report(0.1, {sent}), "host1", {{"host2", report(0.1, {received})}});
  ASSERT_EQ(lab.directions.size(), 1u);
  EXPECT_EQ(lab.directions[0].delayed_packets, 120u);
  EXPECT_EQ(lab.directions[0].lateness.count(), 4u);
  ASSERT_TRUE(lab.directions[0].rate_ratio);
  EXPECT_DOUBLE_EQ(*lab.directions[0].rate_ratio, 0.5);
  EXPECT_EQ(lab.problems().size(), 1u) << lab.warning();  // the sender's slow rate
}

}  // namespace
}  // namespace testbed
