// MLfabric's scheduler, pure: the network state's t_en and NetUp (Fig. 4), the ordering
// with deadlines and look-ahead drops (Alg. 1-2, Fig. 5), and the batching scheduler.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "agent/protocols/mlfabric/ordered_pushes.h"
#include "controller/training/mlfabric/update_order.h"
#include "controller/training/mlfabric/update_scheduler.h"

namespace testbed {
namespace {

constexpr double kMbit = 1e6;
constexpr double kMB = 1e6;

// A star: worker w's uplink is link w, the server's downlink is link 100.
constexpr size_t kServerLink = 100;
LinkPath up(size_t worker) {
  return {worker, kServerLink};
}
AggregationPaths two_workers() {
  return {{up(0), up(1)}, {}};
}
using Word = SchedulerDecision::Word;

// The two workers' scheduler with every link at 100 Mbit/s: 1 MB takes 80 ms on any path.
// A delay bound of 10 lets both workers' updates of one version through.
UpdateScheduler fast_pair(uint64_t delay_bound = 10, bool hold_overdue = false) {
  SchedulerOptions o;
  o.delay_bound = delay_bound;
  o.hold_overdue = hold_overdue;
  UpdateScheduler s(o, two_workers());
  s.observe_rates({{0, 100 * kMbit}, {1, 100 * kMbit}, {kServerLink, 100 * kMbit}}, 0);
  return s;
}

TEST(LinkReservations, TransferTakesTheBottleneckAndReservesItOnEveryLink) {
  LinkReservations nw;
  nw.set_rates({{0, 40 * kMbit}, {1, 100 * kMbit}, {kServerLink, 100 * kMbit}});
  // 10 MB over a 40 Mbit/s bottleneck: 2 s.
  const TransferTimes a = nw.reserve(up(0), 10 * kMB, 0);
  EXPECT_DOUBLE_EQ(a.start_s, 0);
  EXPECT_DOUBLE_EQ(a.end_s, 2);
  EXPECT_DOUBLE_EQ(nw.residual(kServerLink, 1), 60 * kMbit);
  EXPECT_DOUBLE_EQ(nw.residual(0, 1), 0);
  EXPECT_DOUBLE_EQ(nw.residual(kServerLink, 2), 100 * kMbit);  // free again once it ends
  // Worker 1 shares the server's link: 60 Mbit/s for 2 s (15 MB), then 100 for the rest.
  const TransferTimes b = nw.transfer(up(1), 25 * kMB, 0);
  EXPECT_DOUBLE_EQ(b.start_s, 0);
  EXPECT_NEAR(b.end_s, 2 + 10 * kMB * 8 / (100 * kMbit), 1e-9);
  // A second update behind worker 0's full uplink starts when the first ends.
  const TransferTimes c = nw.transfer(up(0), 5 * kMB, 0.5);
  EXPECT_DOUBLE_EQ(c.start_s, 2);
  EXPECT_DOUBLE_EQ(c.end_s, 3);
  nw.forget_before(2);
  EXPECT_EQ(nw.reservations(), 0u);
}

TEST(LinkReservations, AChainOfTransfersKeepingALinkFullIsOneStretch) {
  LinkReservations nw;
  nw.set_rates({{0, 100 * kMbit}, {kServerLink, 100 * kMbit}});
  // 100 updates of 1 MB back to back: each takes the link from the last one's end.
  for (int i = 0; i < 100; ++i) {
    const TransferTimes t = nw.reserve(up(0), kMB, 0);
    EXPECT_NEAR(t.end_s, (i + 1) * 0.08, 1e-9);
  }
  // Two links, one stretch each: a later transfer reads two steps, not 100 reservations.
  EXPECT_EQ(nw.reservations(), 2u);
  EXPECT_DOUBLE_EQ(nw.residual(kServerLink, 7.99), 0);
  nw.forget_before(4);  // half of it is over: what is left starts at 4 s
  EXPECT_EQ(nw.reservations(), 2u);
  EXPECT_NEAR(nw.transfer(up(0), kMB, 4).start_s, 8, 1e-9);
}

TEST(LinkReservations, UnshapedLinksAreNoBottleneckAndDeadOnesNeverFinish) {
  LinkReservations nw;
  nw.set_rates({{kServerLink, 8 * kMbit}});
  EXPECT_DOUBLE_EQ(nw.transfer(up(3), 1 * kMB, 0).end_s, 1);  // link 3 is unshaped
  EXPECT_DOUBLE_EQ(nw.transfer({7}, 1 * kMB, 0).end_s, 0);
  nw.set_rates({{kServerLink, 0}});
  EXPECT_TRUE(std::isinf(nw.transfer(up(3), 1 * kMB, 0).end_s));
}

PendingUpdate update(int worker, uint64_t version, double bytes, uint64_t announced) {
  return {worker, version, bytes, up(static_cast<size_t>(worker)), announced};
}

LinkReservations star(const std::vector<double>& uplink_mbit, double server_mbit) {
  LinkReservations nw;
  std::map<size_t, double> rates{{kServerLink, server_mbit * kMbit}};
  for (size_t w = 0; w < uplink_mbit.size(); ++w) rates[w] = uplink_mbit[w] * kMbit;
  nw.set_rates(rates);
  return nw;
}

TEST(UpdateOrder, ShortestTransferFirstWhenNoDeadlineBinds) {
  LinkReservations nw = star({10, 100, 50}, 100);
  const BatchOrder b =
      order_updates({update(0, 0, 1 * kMB, 0), update(1, 0, 1 * kMB, 1), update(2, 0, 1 * kMB, 2)},
                    0, 100, nw, 0);
  ASSERT_EQ(b.ordered.size(), 3u);
  EXPECT_TRUE(b.dropped.empty());
  EXPECT_EQ(b.ordered[0].update.worker, 1);
  EXPECT_EQ(b.ordered[1].update.worker, 2);
  EXPECT_EQ(b.ordered[2].update.worker, 0);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(b.ordered[i].applies_to, i);
  // Time-sharing: worker 1 takes the whole server link first; 2 and 0 start after it.
  EXPECT_DOUBLE_EQ(b.ordered[0].times.end_s, 0.08);
  EXPECT_DOUBLE_EQ(b.ordered[1].times.start_s, 0.08);  // the server link is full until then
  EXPECT_GT(b.ordered[2].times.end_s, b.ordered[1].times.end_s);
}

TEST(UpdateOrder, ADeadlineTakesItsPlaceAndTheDelayBoundHolds) {
  // Worker 0's update is the largest and its model the oldest: dl = 5 + 3 - 6 = 2, so it
  // goes second, not last as shortest-first alone would put it.
  LinkReservations nw = star({100, 100, 100, 100}, 100);
  const BatchOrder b = order_updates({update(0, 5, 2 * kMB, 0), update(1, 6, 1 * kMB, 1),
                                      update(2, 6, 1 * kMB, 2), update(3, 6, 1 * kMB, 3)},
                                     6, 3, nw, 0);
  ASSERT_EQ(b.ordered.size(), 3u);  // worker 3's deadline (3) is past at place 4: dropped
  EXPECT_EQ(b.ordered[1].update.worker, 0);
  for (const auto& o : b.ordered) EXPECT_LT(o.applies_to - o.update.version, 3u);
  ASSERT_EQ(b.dropped.size(), 1u);
  EXPECT_EQ(b.dropped[0].why, "deadline");
}

TEST(UpdateOrder, LookAheadDropsTheSlowUpdateOfFigure5) {
  // The paper's Fig. 5: g1 behind 10 Mbit/s is due first (dl 1), g2 (dl 5) behind a fast
  // link would finish before it even with g1's share reserved: g1 is dropped at its worker.
  LinkReservations nw = star({10, 100}, 100);
  const double bytes = 12.5 * kMB;  // 10 s at 10 Mbit/s, as in the figure
  const BatchOrder b = order_updates({update(0, 0, bytes, 0), update(1, 4, bytes, 1)}, 0, 1, nw, 0);
  ASSERT_EQ(b.ordered.size(), 1u);
  EXPECT_EQ(b.ordered[0].update.worker, 1);
  EXPECT_DOUBLE_EQ(b.ordered[0].times.end_s, 1);  // 100 Mbit/s, the whole link
  ASSERT_EQ(b.dropped.size(), 1u);
  EXPECT_EQ(b.dropped[0].update.worker, 0);
  EXPECT_EQ(b.dropped[0].why, "look-ahead");
}

TEST(UpdateOrder, AnOldModelIsDroppedBeforeOrdering) {
  LinkReservations nw = star({100}, 100);
  const BatchOrder b = order_updates({update(0, 2, 1 * kMB, 0)}, 40, 30, nw, 0);
  EXPECT_TRUE(b.ordered.empty());
  ASSERT_EQ(b.dropped.size(), 1u);
  EXPECT_EQ(b.dropped[0].why, "deadline");
  EXPECT_EQ(nw.reservations(), 0u);  // nothing reserved for it
}

TEST(UpdateScheduler, BatchesEveryIntervalAndTellsEachWorkerAtItsStart) {
  auto s = fast_pair();
  s.announce(0, 0, 1 * kMB, 0.0);  // the first batch falls on the first announcement
  auto first = s.poll(0.0);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].worker, 0);
  EXPECT_EQ(first[0].word, Word::kSend);
  EXPECT_EQ(first[0].seq, 0u);
  s.announce(1, 0, 1 * kMB, 0.05);  // waits for the next batch
  EXPECT_TRUE(s.poll(0.05).empty());
  EXPECT_DOUBLE_EQ(s.next_poll_s(), 0.1);
  auto second = s.poll(0.1);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].worker, 1);
  EXPECT_EQ(second[0].seq, 1u);
  // Two in one batch time-share the server's link: the second starts as the first ends.
  s.announce(0, 1, 1 * kMB, 0.15);
  s.announce(1, 1, 1 * kMB, 0.15);
  EXPECT_TRUE(s.poll(0.15).empty());
  auto third = s.poll(0.2);
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].worker, 0);
  EXPECT_NEAR(s.next_poll_s(), 0.28, 1e-9);  // 1 MB at 100 Mbit/s later
  auto fourth = s.poll(0.28);
  ASSERT_EQ(fourth.size(), 1u);
  EXPECT_EQ(fourth[0].seq, 3u);
  EXPECT_EQ(s.stats()["ordered"], 4);
  EXPECT_EQ(s.stats()["dropped"], 0);
}

TEST(UpdateScheduler, EachArrivalIsComparedWithThePlannedOne) {
  auto s = fast_pair();
  s.announce(0, 0, 1 * kMB, 0.0);
  s.announce(1, 0, 1 * kMB, 0.0);
  ASSERT_EQ(s.poll(0.0).size(), 1u);  // places 0 and 1, planned to end at 0.08 and 0.16 s
  s.arrived(0, 0.085);                // 5 ms after its plan: within the report's own lag
  s.arrived(1, 0.26);                 // 100 ms late
  s.arrived(1, 0.27);                 // a second report, and one never planned
  s.arrived(7, 0.3);
  const auto a = s.stats()["arrivals"];
  EXPECT_EQ(a["reported"], 2u);
  EXPECT_EQ(a["late"], 1u);
  EXPECT_DOUBLE_EQ(a["late_share"].get<double>(), 0.5);
  EXPECT_NEAR(a["lateness_s"]["max"].get<double>(), 0.10, 1e-9);
  EXPECT_EQ(a["unplanned"], 2u);
  EXPECT_EQ(a["not_reported"], 0u);
}

TEST(UpdateScheduler, AMessageOverdueAtTheServerKeepsItsLinksBusyWhenTheMonitorSaysSo) {
  // Worker 0's update is planned to reach the server at 0.08 s and is not reported by the
  // next batch at 0.1 s. Read from the plan, the server's link is free then and worker 1's
  // update goes at once; read from the arrivals, it is still busy for the next interval.
  for (const bool hold : {false, true}) {
    auto s = fast_pair(10, hold);
    s.announce(0, 0, 1 * kMB, 0.0);
    ASSERT_EQ(s.poll(0.0).size(), 1u);
    s.announce(1, 0, 1 * kMB, 0.05);
    const auto at_batch = s.poll(0.1);
    EXPECT_EQ(at_batch.size(), hold ? 0u : 1u) << "hold " << hold;
    if (hold) {
      EXPECT_NEAR(s.next_poll_s(), 0.2, 1e-9);
      EXPECT_EQ(s.poll(0.2).size(), 1u);
    }
    s.arrived(0, 0.15);
    s.arrived(1, 0.3);
    EXPECT_EQ(s.stats()["overdue_holds"], hold ? 1u : 0u);
  }
}

TEST(UpdateScheduler, RatesReachTheOrderingAfterTheReportingLag) {
  // Worker 0's uplink falls and worker 1's rises at 1.0 s; both announce at `at`, in
  // `order`; the worker told to send first is the one the scheduler thinks faster.
  const auto first_to_send = [](double at, std::vector<int> order) {
    UpdateScheduler s(SchedulerOptions{}, two_workers());
    s.observe_rates({{0, 100 * kMbit}, {1, 10 * kMbit}, {kServerLink, 100 * kMbit}}, 0);
    s.observe_rates({{0, 10 * kMbit}, {1, 100 * kMbit}, {kServerLink, 100 * kMbit}}, 1.0);
    for (int w : order) s.announce(w, 0, 1 * kMB, at);
    const auto told = s.poll(at);
    return told.empty() ? -1 : told[0].worker;
  };
  // At 1.0 s the change is not yet reported: worker 0 still looks fast and goes first.
  EXPECT_EQ(first_to_send(1.0, {1, 0}), 0);
  // At 1.25 s the change is reported (t_lag 0.2 s): worker 1 goes first.
  EXPECT_EQ(first_to_send(1.25, {0, 1}), 1);
}

TEST(UpdateScheduler, DropsAreToldAndCounted) {
  auto s = fast_pair(1);
  s.announce(0, 0, 1 * kMB, 0);
  s.announce(1, 0, 1 * kMB, 0);
  const auto d = s.poll(0);  // bound 1: only one update may apply to version 0
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].word, Word::kDrop);
  EXPECT_EQ(d[0].worker, 1);
  EXPECT_EQ(d[1].word, Word::kSend);
  const auto st = s.stats();
  EXPECT_EQ(st["dropped"], 1);
  EXPECT_DOUBLE_EQ(st["drop_fraction"].get<double>(), 0.5);
  EXPECT_EQ(st["max_delay"], 0);
}

TEST(HopPath, FewestHopsThroughTheCore) {
  // 0 = core, 1..3 hosts; links both ways.
  const std::vector<std::pair<int, int>> d = {{1, 0}, {0, 1}, {2, 0}, {0, 2}, {3, 0}, {0, 3}};
  EXPECT_EQ(hop_path(d, 2, 3), (LinkPath{2, 5}));
  EXPECT_EQ(hop_path(d, 1, 0), (LinkPath{0}));
  EXPECT_THROW(hop_path(d, 1, 9), std::invalid_argument);
}

TEST(OrderedPushes, AppliesInTheSchedulersOrderAndRefusesATwice) {
  OrderedPushes<int> o;
  o.add(1, 11);
  EXPECT_FALSE(o.next());  // place 0 has not arrived
  o.add(0, 10);
  EXPECT_EQ(o.next()->first, 10);
  EXPECT_EQ(o.next()->first, 11);
  EXPECT_FALSE(o.next());
  EXPECT_EQ(o.applied(), 2u);
  EXPECT_EQ(o.early(), 1u);
  EXPECT_THROW(o.add(1, 11), std::runtime_error);
  o.add(3, 13);
  EXPECT_THROW(o.add(3, 13), std::runtime_error);
  // A sum covers consecutive places and applies as one; a place inside it cannot come again.
  o.add(4, 14, 3);
  EXPECT_THROW(o.add(5, 15), std::runtime_error);
  EXPECT_THROW(o.add(2, 12, 2), std::runtime_error);  // would cover place 3 again
  o.add(2, 12);
  EXPECT_EQ(o.next()->first, 12);
  EXPECT_EQ(o.next()->first, 13);
  const auto sum = o.next();
  EXPECT_EQ(sum->first, 14);
  EXPECT_EQ(sum->second, 3u);
  EXPECT_EQ(o.applied(), 7u);
}

// A failover (MLfabric's replica made the server): the promoted copy skips the places that
// died with the server, keeps what already came of the new order, and throws on the old.
TEST(OrderedPushes, AFailoverSkipsToTheNewOrdersFirstPlace) {
  OrderedPushes<int> o;
  o.add(0, 10);
  EXPECT_EQ(o.next()->first, 10);
  o.add(2, 12);                 // of the dead order: place 1 will never come
  o.add(5, 15);                 // of the new order, early
  EXPECT_EQ(o.skip_to(4), 3u);  // places 1, 2 and 3 skipped
  EXPECT_EQ(o.applied(), 4u);
  EXPECT_EQ(o.waiting(), 1u);  // place 2 discarded, place 5 kept
  EXPECT_FALSE(o.next());
  o.add(4, 14);
  EXPECT_EQ(o.next()->first, 14);
  EXPECT_EQ(o.next()->first, 15);
  EXPECT_THROW(o.skip_to(3), std::runtime_error);  // never back
  EXPECT_THROW(o.add(2, 12), std::runtime_error);
}

// The scheduler that takes over after a failover numbers its places after the dead one's.
TEST(UpdateScheduler, AFailoversSchedulerStartsAtTheFirstPlaceItIsGiven) {
  SchedulerOptions o;
  o.first_seq = 72;
  UpdateScheduler s(o, two_workers());
  s.observe_rates({{0, 100 * kMbit}, {1, 100 * kMbit}, {kServerLink, 100 * kMbit}}, 0);
  s.announce(0, 71, 1 * kMB, 0.0);
  const auto first = s.poll(0.0);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].seq, 72u);
  EXPECT_EQ(s.ordered(), 73u);
  EXPECT_EQ(s.unsent_places(), 0u);
  s.announce(0, 72, 1 * kMB, 0.05);
  s.announce(1, 72, 1 * kMB, 0.05);
  s.poll(0.1);  // one starts now, the other once the first is across: one still unsent
  EXPECT_EQ(s.unsent_places(), 1u);
}

// RR-Sync's ring, run in memory: every worker ends with the sum of all the updates, and
// each sends 2(W-1) segments of about 1/W of the model.
TEST(UpdateScheduler, SynchronousBatchesOrderEveryUpdateAndDropNone) {
  // MLfabric-S: the same batch that drops at bound 1 (above) orders both, shortest first,
  // and a stale version does not matter: the clock cannot end without the update.
  SchedulerOptions o;
  o.delay_bound = 1;
  o.synchronous = true;
  UpdateScheduler s(o, two_workers());
  s.observe_rates({{0, 20 * kMbit}, {1, 100 * kMbit}, {kServerLink, 100 * kMbit}}, 0);
  s.announce(0, 0, 1 * kMB, 0);
  s.announce(1, 0, 1 * kMB, 0);
  const auto first = s.poll(0);
  ASSERT_EQ(first.size(), 1u) << "one goes now, none is dropped";
  EXPECT_EQ(first[0].word, Word::kSend);
  EXPECT_EQ(first[0].worker, 1) << "worker 1's transfer ends first";
  // Worker 1's 1 MB fills the server's link for 80 ms; then worker 0's goes.
  EXPECT_NEAR(s.next_poll_s(), 0.08, 1e-9);
  const auto second = s.poll(0.08);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].word, Word::kSend);
  EXPECT_EQ(second[0].worker, 0);
  EXPECT_EQ(second[0].seq, 1u);
  EXPECT_EQ(s.stats()["dropped"], 0);
  EXPECT_EQ(s.stats()["ordered"], 2);
}

TEST(UpdateOrder, TheSynchronousListKeepsAnUpdateBehindADeadLink) {
  LinkReservations nw;
  nw.set_rates({{0, 0}, {1, 100 * kMbit}, {kServerLink, 100 * kMbit}});
  const BatchOrder b =
      list_updates({{0, 0, 1 * kMB, up(0), 0, 0}, {1, 0, 1 * kMB, up(1), 1, 0}}, 4, nw, 2.0);
  ASSERT_EQ(b.ordered.size(), 2u);
  EXPECT_TRUE(b.dropped.empty());
  EXPECT_EQ(b.ordered[0].update.worker, 1);
  EXPECT_EQ(b.ordered[0].applies_to, 4u);
  EXPECT_EQ(b.ordered[1].update.worker, 0) << "a link at rate 0 goes last, not dropped";
  EXPECT_DOUBLE_EQ(b.ordered[1].times.start_s, 2.0) << "it goes now and waits for the link";
  EXPECT_EQ(b.ordered[1].times.end_s, std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(nw.residual(kServerLink, 2.05), 0) << "the live one fills the link";
  EXPECT_DOUBLE_EQ(nw.residual(kServerLink, 2.1), 100 * kMbit) << "the dead one reserves nothing";
}

}  // namespace
}  // namespace testbed
