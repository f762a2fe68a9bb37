// A node's churn (controller/topology/node_churn.h): a seeded model of a provider's
// machine coming and going, expanded into the node's schedule as alternating leaves and
// joins; repeatable, per node, and refused where it is written when it is wrong.
#include <gtest/gtest.h>

#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/node_churn.h"
#include "validation_errors.h"

namespace testbed {
namespace {

Topology churned(const std::string& a_node, const std::string& b_node = "{}") {
  return parse_profile_text("lab: nc\nnodes:\n  a: " + a_node + "\n  b: " + b_node +
                                "\nlinks:\n  - {endpoints: [a, b], bandwidth: 10mbit}\n",
                            "c.yaml");
}

std::vector<std::string> churn_errors(const std::string& a_node) {
  return validation_errors([&] { churned(a_node); });
}

TEST(NodeChurn, ANodeLeavesAndJoinsInTurnFromTheStartUntilItsHorizon) {
  const Topology t = churned("{churn: {up_mean: 6s, away_mean: 3s, seed: 3, until: 3600s}}");
  const auto& events = t.nodes[0].schedule;
  ASSERT_GT(events.size(), 400u);  // ~400 cycles expected in an hour
  int64_t last = 0, up = 0, away = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].kind, i % 2 == 0 ? NodeEvent::Kind::kLeave : NodeEvent::Kind::kJoin);
    EXPECT_GE(events[i].at_us - last, kMinChurnGapUs);  // no two requests fold into one
    (i % 2 == 0 ? up : away) += events[i].at_us - last;
    last = events[i].at_us;
  }
  EXPECT_LT(last, 3600LL * 1000000);
  // The means are the model's: over hundreds of draws, within 20% (an exponential's spread
  // over n draws is mean/sqrt(n): 5% at 400; the 1 s floor adds 1-3%).
  const double cycles = static_cast<double>(events.size()) / 2;
  EXPECT_NEAR(static_cast<double>(up) / cycles / 1e6, 6, 1.2);
  EXPECT_NEAR(static_cast<double>(away) / cycles / 1e6, 3, 0.6);
  // Where it is written: the events' position is the churn's.
  EXPECT_EQ(events[0].pos.line, 3);
  // It reaches the plan as any schedule does.
  EXPECT_TRUE(make_plan(t, false).has_schedules);
}

TEST(NodeChurn, TheSameSeedGivesTheSameEventsAndEachNodeItsOwn) {
  const std::string model = "{churn: {up_mean: 20s, away_mean: 10s, seed: 9, until: 3600s}}";
  const auto at = [](const Topology& t, size_t node) {
    std::vector<int64_t> out;
    for (const auto& e : t.nodes[node].schedule) out.push_back(e.at_us);
    return out;
  };
  const Topology one = churned(model, model), two = churned(model, model);
  EXPECT_EQ(at(one, 0), at(two, 0));
  EXPECT_NE(at(one, 0), at(one, 1));  // a and b of one seed do not move together
  EXPECT_NE(at(one, 0),
            at(churned("{churn: {up_mean: 20s, away_mean: 10s, seed: 10, until: 3600s}}"), 0));
  // Without a seed of its own, the profile's.
  EXPECT_EQ(at(churned("{churn: {up_mean: 20s, away_mean: 10s, until: 3600s}}"), 0),
            at(churned("{churn: {up_mean: 20s, away_mean: 10s, seed: 1, until: 3600s}}"), 0));
  // Pauses and CPU shares go beside it, in time order.
  const Topology mixed = churned(
      "{churn: {up_mean: 20s, away_mean: 10s, until: 3600s}, "
      "schedule: [{at: 300s, event: cpus, cpus: 0.5}]}");
  const auto& s = mixed.nodes[0].schedule;
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end(),
                             [](const auto& x, const auto& y) { return x.at_us < y.at_us; }));
  EXPECT_EQ(std::count_if(s.begin(), s.end(),
                          [](const auto& e) { return e.kind == NodeEvent::Kind::kCpus; }),
            1);
}

TEST(NodeChurn, BadChurnIsRefusedWhereItIsWritten) {
  EXPECT_EQ(churn_errors("{churn: {up_mean: 60s}}"),
            std::vector<std::string>{
                "c.yaml:3:14: node 'a' churn: needs 'away_mean', e.g. away_mean: 60s"});
  EXPECT_EQ(churn_errors("{churn: {up_mean: 500ms, away_mean: 60s}}"),
            std::vector<std::string>{"c.yaml:3:24: node 'a' churn: up_mean: at least 1s (a "
                                     "node's requests closer than that could fold into one)"});
  EXPECT_EQ(churn_errors("{churn: {up_mean: 60s, away_mean: 60s, colour: red}}"),
            std::vector<std::string>{"c.yaml:3:45: node 'a' churn: unknown key 'colour' "
                                     "(up_mean, away_mean, seed, until)"});
  EXPECT_EQ(churn_errors("{churn: {up_mean: 60s, away_mean: 60s, seed: x}}"),
            std::vector<std::string>{"c.yaml:3:51: node 'a' churn: seed: expected a whole number"});
  // A sign or a tail is no whole number (stoull alone read -1 as 2^64-1, 7x as 7).
  for (const char* seed : {"-1", "7x"})
    EXPECT_EQ(
        churn_errors(std::string("{churn: {up_mean: 60s, away_mean: 60s, seed: ") + seed + "}}"),
        std::vector<std::string>{"c.yaml:3:51: node 'a' churn: seed: expected a whole number"});
  EXPECT_EQ(churn_errors("{churn: [60s]}"),
            std::vector<std::string>{"c.yaml:3:14: node 'a' churn: expected {up_mean: 120s, "
                                     "away_mean: 60s, seed: 1, until: 1800s}"});
  EXPECT_EQ(
      churn_errors("{churn: {up_mean: 60s, away_mean: 60s, until: 0s}}"),
      std::vector<std::string>{"c.yaml:3:52: node 'a' churn: until: must be after the start"});
  // Its leaves and joins are the node's: the schedule may not have its own.
  EXPECT_EQ(churn_errors("{churn: {up_mean: 60s, away_mean: 60s}, "
                         "schedule: [{at: 10s, event: leave}]}"),
            std::vector<std::string>{"c.yaml:3:14: node 'a' churn: its schedule has a leave at "
                                     "line 3: leaves and joins come from one or the other"});
}

}  // namespace
}  // namespace testbed
