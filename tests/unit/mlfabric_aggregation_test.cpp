// MLfabric's in-network aggregation, pure: Alg. 3's grouping of ordered updates over a
// star whose server link is the bottleneck, the scheduler's words to workers and
// aggregators, and the aggregator's sums.
#include <gtest/gtest.h>

#include "agent/protocols/mlfabric/update_sums.h"
#include "controller/training/mlfabric/aggregation.h"
#include "controller/training/mlfabric/update_scheduler.h"
#include "mlfabric_star.h"

namespace testbed {
namespace {

using namespace mlfabric_star;

AggregationPaths star_paths() {
  return paths_to(kServer);
}

LinkReservations star(double server_mbit) {
  LinkReservations nw;
  nw.set_rates(star_rates(server_mbit, 100));
  return nw;
}

std::vector<AggregationInput> four_updates() {
  return {{0, 1 * kMB}, {1, 1 * kMB}, {2, 1 * kMB}, {3, 1 * kMB}};
}

TEST(Aggregation, WithoutAggregatorsEveryUpdateGoesDirectInOrder) {
  LinkReservations nw = star(100);
  const auto plan = plan_aggregation(four_updates(), {}, star_paths(), 1 * kMB, nw, 0);
  EXPECT_EQ(plan.direct, 4u);
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].aggregator, -1);
  // Alg. 2's schedule: the server's link time-shared, one update after another.
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(plan.transfers[i].start_s, kUpdateS * static_cast<double>(i), 1e-9);
    EXPECT_EQ(plan.to[i], -1);
  }
  EXPECT_NEAR(plan.end_s, 4 * kUpdateS, 1e-9);
  EXPECT_DOUBLE_EQ(plan.groups[0].bytes, 4 * kMB);
}

TEST(Aggregation, SumsAtAnAggregatorWhenTheServersLinkIsTheBottleneck) {
  LinkReservations nw = star(100);
  // Aggregators pre-assigned: worker 2's node for the first group, worker 3's for the next.
  const auto plan = plan_aggregation(four_updates(), {2, 3}, star_paths(), 1 * kMB, nw, 0);
  // Direct only, the server receives for 4 x 80 ms; summing two updates at worker 2's node
  // (one of them its own) saves one transfer on the server's link: 3 x 80 ms.
  EXPECT_NEAR(plan.end_s, 3 * kUpdateS, 1e-9);
  double to_server = 0;
  size_t next = 0;
  for (const auto& g : plan.groups) {
    EXPECT_EQ(g.first, next) << "groups keep the order and leave no update out";
    next += g.count;
    to_server += g.bytes;
    for (size_t i = g.first; i < g.first + g.count; ++i) EXPECT_EQ(plan.to[i], g.aggregator);
  }
  EXPECT_EQ(next, 4u);
  EXPECT_DOUBLE_EQ(to_server, 3 * kMB) << "a dense sum is one update's size";
  EXPECT_LT(plan.direct, 4u);
  // The chosen plan is what got reserved: the server's link is busy until the end, no more.
  EXPECT_DOUBLE_EQ(nw.residual(kServer, plan.end_s - 1e-6), 0);
  EXPECT_DOUBLE_EQ(nw.residual(kServer, plan.end_s + 1e-6), 100 * kMbit);
}

TEST(Aggregation, AggregatorsAreLeftIdleWhenTheyWouldNotPay) {
  // A server link ten times the workers' links: a detour through an aggregator only delays.
  LinkReservations nw = star(1000);
  const auto plan = plan_aggregation(four_updates(), {2, 3}, star_paths(), 1 * kMB, nw, 0);
  EXPECT_EQ(plan.direct, 4u);
  EXPECT_NEAR(plan.end_s, kUpdateS, 1e-9);  // every uplink in parallel, 100 Mbit/s each
}

TEST(UpdateScheduler, TellsAggregatorsWhatToSumAndWorkersWhereToSend) {
  SchedulerOptions o;
  o.delay_bound = 10;
  o.aggregators = 2;
  o.model_bytes = 1 * kMB;
  UpdateScheduler s(o, star_paths());
  std::map<size_t, double> rates{{kServer, 100 * kMbit}};
  for (size_t w = 0; w < kWorkers; ++w) rates[w] = rates[kDown + w] = 100 * kMbit;
  s.observe_rates(rates, 0);
  for (int w = 0; w < 4; ++w) s.announce(w, 0, 1 * kMB, 0);
  std::vector<SchedulerDecision> words;
  for (double t = 0; t < 1; t = s.next_poll_s())
    for (const auto& d : s.poll(t)) words.push_back(d);
  size_t sends = 0, summed = 0;
  std::map<int, size_t> expected_at;  // aggregator -> updates it was told to sum
  for (const auto& d : words) {
    if (d.word == SchedulerDecision::Word::kAggregate) {
      summed += d.count;
      expected_at[d.worker] += d.count;
    }
    if (d.word == SchedulerDecision::Word::kSend) ++sends;
  }
  EXPECT_EQ(sends, 4u);
  EXPECT_GT(summed, 0u) << "the server's link is the bottleneck: some updates are summed";
  for (const auto& d : words) {
    if (d.word == SchedulerDecision::Word::kSend && d.to >= 0) {
      EXPECT_GT(expected_at[d.to], 0u);
    }
  }
  const auto st = s.stats()["aggregation"];
  EXPECT_EQ(st["aggregated_updates"], summed);
  EXPECT_LT(st["planned_bytes_to_server"].get<double>(), st["ordered_bytes"].get<double>());
}

TEST(UpdateSums, SumsAGroupOnceEveryUpdateIsHereEvenBeforeItIsNamed) {
  UpdateSums sums(4);
  EXPECT_FALSE(sums.add(5, {}, {1, 1, 1, 1}));  // its group is not named yet
  EXPECT_FALSE(sums.expect(4, 3));
  EXPECT_FALSE(sums.add(4, {}, {1, 2, 3, 4}));
  const auto sum = sums.add(6, {}, {0.5f, 0, 0, 0});
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->first, 4u);
  EXPECT_EQ(sum->count, 3u);
  EXPECT_TRUE(sum->dense);
  EXPECT_EQ(sum->values, (std::vector<float>{2.5f, 3, 4, 5}));
  EXPECT_EQ(sums.sums(), 1u);
  EXPECT_EQ(sums.updates(), 3u);
  EXPECT_EQ(sums.waiting(), 0u);
  EXPECT_THROW(sums.expect(10, 0), std::runtime_error);
}

TEST(UpdateSums, SparseUpdatesMergeByKeyAndGoDenseWhenThatIsSmaller) {
  UpdateSums sums(10);
  EXPECT_FALSE(sums.expect(0, 2));
  EXPECT_FALSE(sums.add(0, {1, 7}, {1, 2}));
  const auto small = sums.add(1, {7, 8}, {3, 4});
  ASSERT_TRUE(small);
  EXPECT_FALSE(small->dense);
  EXPECT_EQ(small->keys, (std::vector<uint32_t>{1, 7, 8}));
  EXPECT_EQ(small->values, (std::vector<float>{1, 5, 4}));
  // Six keys of ten as key-value pairs would cost more than ten values.
  EXPECT_FALSE(sums.expect(2, 2));
  EXPECT_FALSE(sums.add(2, {0, 1, 2}, {1, 1, 1}));
  const auto big = sums.add(3, {3, 4, 5}, {1, 1, 1});
  ASSERT_TRUE(big);
  EXPECT_TRUE(big->dense);
  EXPECT_EQ(big->values.size(), 10u);
  EXPECT_EQ(big->values[9], 0.0f);
  // A place already waiting cannot arrive again.
  EXPECT_FALSE(sums.add(20, {}, std::vector<float>(10)));
  EXPECT_THROW(sums.add(20, {}, std::vector<float>(10)), std::runtime_error);
}

}  // namespace
}  // namespace testbed
