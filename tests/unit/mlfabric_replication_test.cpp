// MLfabric's bounded-divergence replication, pure: which replica transfers a batch freezes
// and which it punts, when the server's last transfer is held back (Sec. 5.3, Fig. 3), the
// scheduler's words and the sends it holds until the replica reports, and the divergence
// measured from the server's and the replica's records.
#include <gtest/gtest.h>

#include <set>

#include "controller/training/mlfabric/divergence.h"
#include "controller/training/mlfabric/replication.h"
#include "controller/training/mlfabric/update_scheduler.h"
#include "mlfabric_star.h"

namespace testbed {
namespace {

using namespace mlfabric_star;

LinkReservations star(double replica_mbit) {
  LinkReservations nw;
  nw.set_rates(star_rates(100, replica_mbit));
  return nw;
}

// A scheduler with a replica whose link is a quarter of the server's (320 ms an update).
UpdateScheduler replicating(uint64_t div_max) {
  SchedulerOptions o;
  o.delay_bound = 100;
  o.div_max = div_max;
  o.model_bytes = kMB;
  UpdateScheduler s(o, paths_to(kServer), paths_to(kReplica));
  s.observe_rates(star_rates(100, 25), 0);
  return s;
}

// A batch of 4 updates, one per worker: the server's transfers as Alg. 2 places them
// (0-320 ms, T_last = 320 ms), then the replica's with the bound `div_max`; `network` is
// the network after both.
struct FourUpdates {
  LinkReservations network;
  ReplicationPlan replica;
};

FourUpdates replicate_four(double replica_mbit, uint64_t div_max) {
  FourUpdates f{star(replica_mbit), {}};
  const auto server = plan_aggregation({{0, kMB}, {1, kMB}, {2, kMB}, {3, kMB}}, {},
                                       paths_to(kServer), kMB, f.network, 0);
  const std::vector<ReplicaCandidate> places = {
      {0, 0, kMB, 0}, {1, 1, kMB, 0}, {2, 2, kMB, 0}, {3, 3, kMB, 0}};
  f.replica = plan_replication(places, {4, 0, server.end_s, div_max}, {}, paths_to(kReplica), kMB,
                               f.network, 0);
  return f;
}

TEST(Replication, AReplicaWithRoomTakesTheBatchAsItGoes) {
  const auto r = replicate_four(100, 0).replica;
  // Each copy takes its worker's uplink while the server's transfer does not (workers 1
  // and 3 before theirs, 0 and 2 after): all four are in by T_last = 320 ms, so even with
  // Div_max 0 nothing is held back or punted.
  EXPECT_EQ(r.frozen, 4u);
  EXPECT_FALSE(r.hold_last_until_s);
  EXPECT_EQ(r.lead_at_end, 0u);
}

TEST(Replication, ASlowReplicaIsPuntedWhileTheLeadIsWithinTheBound) {
  const auto [nw, r] = replicate_four(25, 4);  // 320 ms per update into the replica
  // None would arrive by T_last = 320 ms, and a lead of 4 is allowed: all wait.
  EXPECT_EQ(r.frozen, 0u);
  EXPECT_FALSE(r.hold_last_until_s);
  EXPECT_EQ(r.lead_at_end, 4u);
  EXPECT_DOUBLE_EQ(nw.residual(kReplica, 0.5), 25 * kMbit) << "punted updates reserve nothing";
}

TEST(Replication, BeyondTheBoundTheServersLastUpdateWaitsForTheReplica) {
  const auto [nw, r] = replicate_four(25, 2);
  // A lead of 4 at T_last is over 2: the replica must have 2 places first (Fig. 3b). Its
  // link takes 320 ms per update: place 0 runs 80-400 ms (worker 0's uplink is the server's
  // until 80); place 1 uses the first 80 ms (a quarter) and the rest from 400: 640 ms.
  EXPECT_EQ(r.frozen, 2u);
  ASSERT_TRUE(r.hold_last_until_s);
  EXPECT_NEAR(*r.hold_last_until_s, 8 * kUpdateS, 1e-9);
  EXPECT_EQ(r.lead_at_end, 2u);
  EXPECT_DOUBLE_EQ(nw.residual(kReplica, 0.5), 0) << "the frozen transfers are reserved";
}

TEST(Replication, PuntedUpdatesAreSummedWithTheNextBatchs) {
  LinkReservations nw = star(25);
  // Eight places wait (four punted, four new); aggregators on every worker's node.
  std::vector<ReplicaCandidate> c;
  for (uint64_t p = 0; p < 8; ++p) c.push_back({static_cast<int>(p % kWorkers), p, kMB, p});
  const auto r = plan_replication(c, {8, 0, 0, 0}, {0, 1, 2, 3}, paths_to(kReplica), kMB, nw, 0);
  ASSERT_EQ(r.frozen, 8u);  // a bound of 0: everything goes
  double bytes = 0;
  size_t covered = 0;
  for (const auto& g : r.sends.groups) {
    bytes += g.bytes;
    covered += g.count;
  }
  EXPECT_EQ(covered, 8u);
  EXPECT_LT(bytes, 8 * kMB) << "the slow replica link carries sums, not every update";
}

TEST(Replication, TheSchedulerHoldsSendsToTheServerUntilTheReplicaReports) {
  UpdateScheduler s = replicating(1);
  for (int w = 0; w < 4; ++w) s.announce(w, 0, kMB, 0, 7, 2.0);
  std::vector<SchedulerDecision> all;
  for (double t = 0; t < 5; t += 0.01)
    for (const auto& d : s.poll(t)) all.push_back(d);
  std::set<uint64_t> sent, replicated;
  for (const auto& d : all) {
    if (d.word == SchedulerDecision::Word::kSend) {
      sent.insert(d.seq);
      EXPECT_LE(d.gate, 0u) << "only place 0 goes before the replica has any";
    }
    if (d.word == SchedulerDecision::Word::kReplicate) replicated.insert(d.seq);
  }
  EXPECT_EQ(sent, std::set<uint64_t>({0}));
  EXPECT_TRUE(s.waits_for_replica());
  // The replica applies places one by one; each report lets the next send go.
  for (uint64_t applied = 1; applied <= 3; ++applied) {
    s.replica_applied(applied, 5);
    const auto words = s.poll(5);
    ASSERT_EQ(words.size(), 1u);
    EXPECT_EQ(words[0].seq, applied);
  }
  EXPECT_FALSE(s.waits_for_replica());
  s.flush_replica(6);
  for (double t = 6; t < 12; t += 0.01)
    for (const auto& d : s.poll(t))
      if (d.word == SchedulerDecision::Word::kReplicate) replicated.insert(d.seq);
  EXPECT_EQ(replicated, std::set<uint64_t>({0, 1, 2, 3})) << "every place, once";
  EXPECT_EQ(s.norms(), std::vector<double>(4, 2.0));
}

TEST(Replication, OnceTheWorkersAreDoneABatchStillDuePuntsNothing) {
  UpdateScheduler s = replicating(100);  // a bound no batch reaches: the slow would be punted
  for (int w = 0; w < 4; ++w) s.announce(w, 0, kMB, 0.05, 7);
  s.flush_replica(0.06);  // the last updates are announced, their batch falls at 0.1 s
  std::set<uint64_t> replicated;
  for (double t = 0.06; t < 5; t += 0.01)
    for (const auto& d : s.poll(t))
      if (d.word == SchedulerDecision::Word::kReplicate) replicated.insert(d.seq);
  EXPECT_EQ(replicated, std::set<uint64_t>({0, 1, 2, 3}));
  EXPECT_EQ(s.stats()["replication"]["punted_now"], 0u);
}

TEST(Divergence, TheLeadIsCheckedAtEveryApplyOfTheServer) {
  // The server applies at 10, 20, 30; the replica at 15 and 35.
  const std::vector<ApplyRecord> server{{1, 10}, {2, 20}, {3, 30}}, replica{{1, 15}, {2, 35}};
  const auto d = measure_divergence(server, replica, {1, 2, 3}, 1);
  EXPECT_EQ(d.checks, 3u);
  EXPECT_EQ(d.max_lead, 2u);  // at 30: 3 against 1
  EXPECT_EQ(d.max_lead_at_ns, 30);
  EXPECT_EQ(d.over_bound, 1u);
  EXPECT_DOUBLE_EQ(d.max_norm_bound, 2 + 3) << "Eq. 11: the norms of places 1 and 2";
  EXPECT_EQ(measure_divergence(server, replica, {}, 2).over_bound, 0u);
}

}  // namespace
}  // namespace testbed
