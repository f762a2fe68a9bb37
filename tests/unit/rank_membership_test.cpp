// A launched job under its nodes' leaves and joins (controller/launch/rank_membership.h):
// the rules the runner follows, the compute a job reports, and its utilization over the
// wall time and over each node's time in.
#include "controller/launch/rank_membership.h"

#include <gtest/gtest.h>

#include "controller/launch/job_metrics.h"
#include "controller/launch/job_runner.h"
#include "controller/launch/launch_report.h"

namespace testbed {
namespace {

using Action = RankMembership::Action;

MembershipRequest leave(double at) {
  return {"leave", at};
}
MembershipRequest join(double at) {
  return {"join", at};
}

TEST(RankMembership, ALeaveDrainsTheRankAndAJoinRunsItAgain) {
  RankMembership m;
  EXPECT_FALSE(m.starts_outside(std::nullopt));
  EXPECT_EQ(m.on_request(std::nullopt, true, false), Action::kNone);
  EXPECT_EQ(m.on_request(leave(10), true, false), Action::kDrain);
  EXPECT_EQ(m.on_request(leave(10), true, false), Action::kNone);  // the same request
  EXPECT_TRUE(m.draining());
  bool again = true;
  EXPECT_TRUE(m.ended(false, again));  // it left: not a failure
  EXPECT_FALSE(again);
  EXPECT_TRUE(m.outside());
  EXPECT_EQ(m.on_request(join(20), false, false), Action::kStart);
  EXPECT_FALSE(m.outside());
  EXPECT_FALSE(m.ended(false, again)) << "an end not asked for is the runner's to judge";
  EXPECT_EQ(m.leaves(), 1);
  EXPECT_EQ(m.joins(), 1);
}

TEST(RankMembership, ANodeThatLeftBeforeTheLaunchStartsOutsideUntilItJoins) {
  RankMembership m;
  EXPECT_TRUE(m.starts_outside(leave(5)));
  EXPECT_EQ(m.on_request(leave(5), false, false), Action::kNone);  // seen at the launch
  EXPECT_EQ(m.on_request(join(8), false, false), Action::kStart);
  RankMembership joined_before;
  EXPECT_FALSE(joined_before.starts_outside(join(3)));
  EXPECT_EQ(joined_before.on_request(join(3), true, false), Action::kNone);
}

TEST(RankMembership, AJoinWhileDrainingRunsItOnceItHasLeftAndALeaveCancelsIt) {
  RankMembership m;
  m.starts_outside(std::nullopt);
  ASSERT_EQ(m.on_request(leave(1), true, false), Action::kDrain);
  EXPECT_EQ(m.on_request(join(2), true, false), Action::kNone);
  bool again = false;
  EXPECT_TRUE(m.ended(false, again));
  EXPECT_TRUE(again) << "back at once";
  EXPECT_FALSE(m.outside());

  RankMembership cancelled;
  cancelled.starts_outside(std::nullopt);
  ASSERT_EQ(cancelled.on_request(leave(1), true, false), Action::kDrain);
  cancelled.on_request(join(2), true, false);
  cancelled.on_request(leave(3), true, false);
  EXPECT_TRUE(cancelled.ended(false, again));
  EXPECT_FALSE(again);
  EXPECT_TRUE(cancelled.outside());
}

TEST(RankMembership, AJoinWhenTheJobIsEndingIsTooLate) {
  RankMembership m;
  m.starts_outside(leave(1));
  EXPECT_EQ(m.on_request(join(2), false, true), Action::kNone);
  EXPECT_TRUE(m.outside());
  RankMembership draining;
  draining.starts_outside(std::nullopt);
  draining.on_request(leave(1), true, false);
  draining.on_request(join(2), true, false);
  bool again = true;
  EXPECT_TRUE(draining.ended(true, again));
  EXPECT_FALSE(again);
}

TEST(JobCompute, AnIterationsComputeIsAtMostItsSecondsAndNeedsTheIteration) {
  std::string why;
  const auto m = parse_metric_line(R"({"iteration": 2, "seconds": 1.5, "compute_s": 1.2})", why);
  ASSERT_TRUE(m) << why;
  EXPECT_DOUBLE_EQ(*m->compute_s, 1.2);
  EXPECT_TRUE(m->gauges.empty()) << "a known field, not a gauge";
  for (const char* bad :
       {R"({"iteration": 2, "seconds": 1, "compute_s": 2})", R"({"compute_s": 1})",
        R"({"iteration": 2, "compute_s": -1})", R"({"iteration": 2, "compute_s": "all"})"}) {
    EXPECT_FALSE(parse_metric_line(bad, why)) << bad;
    EXPECT_FALSE(why.empty());
  }
}

// Utilization as the built-in runs report it: over the job's wall time, and over each
// node's own time in (an elastic job's node that was away half the run reads its half).
TEST(JobCompute, UtilizationOverTheWallTimeAndOverEachNodesTimeIn) {
  JobMetrics jm({"a", "b"});
  jm.add(0, R"({"iteration": 0, "seconds": 5, "compute_s": 4})", 5, "j");
  jm.add(0, R"({"iteration": 1, "seconds": 5, "compute_s": 4})", 10, "j");
  jm.add(1, R"({"iteration": 1, "seconds": 5, "compute_s": 4})", 10, "j");
  // Without its own seconds, an iteration is the time since the last line: no more.
  jm.add(1, R"({"iteration": 2, "compute_s": 9})", 12, "j");
  std::vector<RankPlan> ranks(2);
  ranks[0].node = "a";
  ranks[1].node = "b";
  ranks[1].rank = 1;
  JobOutcome o{"completed", -1, 10.0, {}};
  o.ranks.resize(2);
  o.ranks[0].running_s = 10;
  o.ranks[1].running_s = 5;  // it joined half-way
  o.ranks[1].joins = 1;
  LaunchRequest request;
  request.job = "j";
  const auto s = launch_summary(request, ranks, o, jm.summary(std::nullopt), {});
  EXPECT_DOUBLE_EQ(s["nodes"][1]["compute_s"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(s["compute_utilization"]["per_worker"]["a"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(s["compute_utilization"]["per_worker"]["b"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(s["compute_utilization"]["mean"].get<double>(), 0.7);
  const auto& in = s["compute_utilization_of_member_time"];
  EXPECT_DOUBLE_EQ(in["per_worker"]["b"]["utilization"].get<double>(), 1.0);  // 6 s in 5: capped
  EXPECT_DOUBLE_EQ(in["member_s"].get<double>(), 15.0);
  EXPECT_EQ(s["nodes"][1]["joins"], 1);
  // A job that reports no compute has no utilization to show.
  JobMetrics silent({"a", "b"});
  EXPECT_FALSE(launch_summary(request, ranks, o, silent.summary(std::nullopt), {})
                   .contains("compute_utilization"));
}

}  // namespace
}  // namespace testbed
