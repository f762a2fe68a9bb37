// MLfabric-S's model distribution (Sec. 10.3), pure: a star whose server sends over one
// downlink; distributors on workers' nodes pass the model on over their own uplinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "controller/training/mlfabric/distribution.h"

namespace testbed {
namespace {

constexpr double kMbit = 1e6;
constexpr double kMB = 1e6;
constexpr size_t kServerDown =
    100;  // server -> core; worker w: core -> w is 10 + w, w -> core 20 + w

DistributionPaths star(size_t workers) {
  DistributionPaths p;
  for (size_t w = 0; w < workers; ++w) {
    p.from_server.push_back({kServerDown, 10 + w});
    p.between.emplace_back();
    for (size_t to = 0; to < workers; ++to)
      p.between[w].push_back(w == to ? LinkPath{} : LinkPath{20 + w, 10 + to});
  }
  return p;
}

LinkReservations rates(size_t workers, double up_bits_per_s) {
  std::map<size_t, double> r = {{kServerDown, 100 * kMbit}};
  for (size_t w = 0; w < workers; ++w) {
    r[10 + w] = 100 * kMbit;
    r[20 + w] = up_bits_per_s;
  }
  LinkReservations nw;
  nw.set_rates(r);
  return nw;
}

void expect_everyone_once(const DistributionPlan& p, size_t workers) {
  std::multiset<int> seen;
  for (const auto& g : p.groups) seen.insert(g.workers.begin(), g.workers.end());
  EXPECT_EQ(seen.size(), workers);
  for (size_t w = 0; w < workers; ++w) EXPECT_EQ(seen.count(static_cast<int>(w)), 1u) << w;
  for (double t : p.arrives_s) EXPECT_LE(t, p.end_s + 1e-12);
}

TEST(Distribution, ADistributorTakesLoadOffTheServersDownlink) {
  // 1 MB at 100 Mbit/s is 80 ms. Alone the server sends four: 320 ms. With one distributor
  // it sends three (the distributor's first, 80 ms), and the distributor passes one on over
  // its own uplink meanwhile: everyone has the model at 240 ms. Two or three distributors
  // do no better; the tie goes to fewer, then to more workers served directly.
  LinkReservations network = rates(4, 100 * kMbit);
  const DistributionPlan p = plan_distribution({2, 0, 1, 3}, star(4), 1 * kMB, network, 0);
  EXPECT_NEAR(p.end_s, 0.24, 1e-9);
  EXPECT_EQ(p.server_sends, 3);
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0].distributor, 2) << "the first distributor drawn";
  EXPECT_EQ(p.groups[0].workers.front(), 2) << "its own worker first";
  EXPECT_EQ(p.groups[0].workers.size(), 2u);
  EXPECT_EQ(p.groups[1].distributor, -1);
  EXPECT_EQ(p.groups[1].workers.size(), 2u);
  EXPECT_NEAR(p.arrives_s[2], 0.08, 1e-9) << "the distributor's copy goes first";
  EXPECT_DOUBLE_EQ(p.server_start_s[2], 0);
  // Then the direct answers, one after the other; the distributor's member gets none.
  std::vector<double> direct;
  for (int w : p.groups[1].workers) direct.push_back(p.server_start_s[static_cast<size_t>(w)]);
  std::sort(direct.begin(), direct.end());
  EXPECT_NEAR(direct[0], 0.08, 1e-9);
  EXPECT_NEAR(direct[1], 0.16, 1e-9);
  EXPECT_EQ(p.server_start_s[static_cast<size_t>(p.groups[0].workers[1])], -1);
  // The plan's transfers are reserved: the server's downlink is busy until 240 ms.
  EXPECT_DOUBLE_EQ(network.residual(kServerDown, 0.2), 0);
  EXPECT_DOUBLE_EQ(network.residual(kServerDown, 0.25), 100 * kMbit);
  expect_everyone_once(p, 4);
}

TEST(Distribution, ItStartsWhenTheServerHasTheModelAroundEarlierReservations) {
  // The server's downlink is taken until 1 s by an earlier transfer: nothing can leave
  // before, and the send times count from the plan's start.
  LinkReservations network = rates(2, 100 * kMbit);
  network.reserve({kServerDown}, 12.5 * kMB, 0);  // 1 s at 100 Mbit/s
  const DistributionPlan p = plan_distribution({}, star(2), 1 * kMB, network, 0.5);
  EXPECT_DOUBLE_EQ(p.start_s, 0.5);
  EXPECT_NEAR(p.end_s, 1.16, 1e-9);
  EXPECT_NEAR(std::min(p.server_start_s[0], p.server_start_s[1]), 1.0, 1e-9);
}

TEST(Distribution, SlowUplinksKeepEveryAnswerAtTheServer) {
  // Passing 1 MB on over a 10 Mbit/s uplink takes 800 ms: no detour pays.
  LinkReservations network = rates(4, 10 * kMbit);
  const DistributionPlan p = plan_distribution({0, 1}, star(4), 1 * kMB, network, 0);
  EXPECT_NEAR(p.end_s, 0.32, 1e-9);
  EXPECT_EQ(p.server_sends, 4);
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups[0].distributor, -1);
  expect_everyone_once(p, 4);
}

TEST(Distribution, ManyWorkersUseSeveralDistributorsAndBeatTheServerAlone) {
  // Eight workers: the server alone needs 640 ms; distributors in parallel far less, and
  // the last group takes whatever is left.
  LinkReservations network = rates(8, 100 * kMbit);
  const DistributionPlan p =
      plan_distribution({5, 1, 6, 2, 0, 7, 3, 4}, star(8), 1 * kMB, network, 0);
  EXPECT_LT(p.end_s, 0.64 * 0.6);
  EXPECT_LT(p.server_sends, 8);
  EXPECT_GE(p.groups.size(), 2u);
  expect_everyone_once(p, 8);
  // Without distributors: the server's downlink carries every copy.
  LinkReservations fresh = rates(8, 100 * kMbit);
  const DistributionPlan alone = plan_distribution({}, star(8), 1 * kMB, fresh, 0);
  EXPECT_NEAR(alone.end_s, 0.64, 1e-9);
  EXPECT_EQ(alone.server_sends, 8);
}

}  // namespace
}  // namespace testbed
