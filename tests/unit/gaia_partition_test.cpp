// Gaia through a partition, its pure parts: the mirror watch that presumes a silent mirror
// cut off, what the mirror state does then, the replica's sketch and the divergence the
// controller reads from it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "agent/contracts/gaia/replica_digest.h"
#include "agent/contracts/message_fields.h"
#include "agent/protocols/gaia/mirror_state.h"
#include "agent/protocols/gaia/mirror_watch.h"
#include "controller/training/gaia/replica_divergence.h"

namespace testbed {
namespace {

using std::chrono::milliseconds;

TEST(MirrorState, AMirrorCutOffHoldsNoReadUntilItIsHeardAgain) {
  MirrorState m(3, 0, 10, 2);
  m.clock_reported(1, 9);
  m.barrier(2, 4, {1, 2});
  EXPECT_EQ(m.can_read(3, {1}), ReadBlock::kMirrorClock);  // node 2 still at clock 0
  m.set_cut(2, true);
  EXPECT_TRUE(m.cut(2));
  EXPECT_EQ(m.slowest_mirror(), 9u);  // left out of the mirror clock
  EXPECT_EQ(m.barred_keys(), 0u);     // its barriers lifted
  EXPECT_EQ(m.can_read(3, {1, 2}), ReadBlock::kNone);
  m.arrived(2, 4);  // its data coming late lifts nothing twice
  EXPECT_EQ(m.barred_keys(), 0u);
  m.set_cut(2, false);  // heard again: it counts from the clock it reports
  EXPECT_EQ(m.can_read(3, {}), ReadBlock::kMirrorClock);
  m.clock_reported(2, 8);
  EXPECT_EQ(m.can_read(3, {}), ReadBlock::kNone);
  m.barrier(2, 5, {7});  // and its barriers hold again
  EXPECT_EQ(m.can_read(3, {7}), ReadBlock::kBarrier);
}

TEST(MirrorWatch, PresumesASilentMirrorCutOffAndClearsItWhenHeard) {
  const auto t0 = MirrorWatch::Clock::now();
  MirrorWatch w({{1, milliseconds(2000)}, {2, milliseconds(5000)}}, t0);
  EXPECT_TRUE(w.heartbeat_due(t0));
  EXPECT_FALSE(w.heartbeat_due(t0 + milliseconds(499)));
  EXPECT_TRUE(w.heartbeat_due(t0 + milliseconds(500)));
  w.heard(1, t0 + milliseconds(1500));
  EXPECT_TRUE(w.expired(t0 + milliseconds(3400)).empty());  // 1.9 s of silence: within bound
  const auto cut = w.expired(t0 + milliseconds(3600));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0], 1);
  EXPECT_TRUE(w.cut(1));
  EXPECT_TRUE(w.expired(t0 + milliseconds(4000)).empty());  // presumed once, not again
  EXPECT_EQ(w.expired(t0 + milliseconds(5001)), std::vector<int>{2});
  EXPECT_FALSE(w.heard(7, t0 + milliseconds(5100)));  // not a mirror: ignored
  EXPECT_TRUE(w.heard(1, t0 + milliseconds(9600)));   // was cut: heard again
  EXPECT_FALSE(w.cut(1));
  EXPECT_FALSE(w.heard(1, t0 + milliseconds(9700)));
  const auto v = w.views(t0 + milliseconds(10000));
  EXPECT_EQ(v.at(1).presumed_cut, 1u);
  EXPECT_NEAR(v.at(1).presumed_cut_s, 6.0, 1e-9);
  EXPECT_NEAR(v.at(1).longest_silence_s, 2.1, 1e-9);  // 1.5 s to 3.6 s
  EXPECT_TRUE(v.at(2).cut_now);
  EXPECT_NEAR(v.at(2).presumed_cut_s, 4.999, 1e-9);
}

// Set up at t0, started 10 s later (the other data centers loading their data): the
// silence before the start is neither a cut nor the longest silence of a working path.
TEST(MirrorWatch, CountsSilenceFromTheStartNotFromTheSetup) {
  const auto t0 = MirrorWatch::Clock::now();
  MirrorWatch w({{1, milliseconds(2000)}}, t0);
  const auto start = t0 + milliseconds(10000);
  w.start(start);
  EXPECT_TRUE(w.expired(start + milliseconds(100)).empty());
  EXPECT_FALSE(w.cut(1));
  EXPECT_EQ(w.next_deadline(), start);  // the first heartbeat goes out at the start
  w.heard(1, start + milliseconds(700));
  EXPECT_NEAR(w.views(start + milliseconds(800)).at(1).longest_silence_s, 0.7, 1e-9);
  EXPECT_EQ(w.expired(start + milliseconds(2701)), std::vector<int>{1});
}

TEST(MirrorWatch, ItsNextDeadlineIsTheHeartbeatOrTheFirstBoundToRunOut) {
  const auto t0 = MirrorWatch::Clock::now();
  MirrorWatch w({{1, milliseconds(300)}}, t0);
  EXPECT_TRUE(w.heartbeat_due(t0));
  EXPECT_EQ(w.next_deadline(), t0 + milliseconds(301));  // the bound, before the heartbeat
  w.expired(t0 + milliseconds(301));
  EXPECT_EQ(w.next_deadline(), t0 + MirrorWatch::kHeartbeat);  // a mirror cut waits for none
}

std::vector<float> random_model(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

TEST(ReplicaDigest, TheSketchesDistanceEstimatesTheReplicasDistance) {
  // 20,000 parameters (mf at scale 2), replicas apart by a sparse and a dense difference:
  // every estimate within 15% (five standard deviations of 1/sqrt(2 * 512)).
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    const auto x = random_model(20000, seed);
    auto y = x;
    const auto noise = random_model(20000, seed + 100);
    for (size_t k = 0; k < y.size(); ++k)
      y[k] += (seed % 2 ? 0.01f : (k % 10 == 0 ? 0.3f : 0.0f)) * noise[k];
    double exact = 0;
    for (size_t k = 0; k < x.size(); ++k) exact += (x[k] - y[k]) * (x[k] - y[k]);
    exact = std::sqrt(exact);
    const double estimate = sketch_distance(count_sketch(x), count_sketch(y));
    EXPECT_NEAR(estimate / exact, 1.0, 0.15) << "seed " << seed;
  }
  const auto x = random_model(1000, 3);
  EXPECT_EQ(sketch_distance(count_sketch(x), count_sketch(x)), 0.0);  // the same hash everywhere
}

TEST(ReplicaDigest, ItsContractRefusesAMalformedReply) {
  ReplicaDigest d;
  d.clock = 4;
  d.norm = 2.5;
  d.sketch = count_sketch(random_model(100, 1));
  d.waiting_keys = 12;
  const auto back = replica_digest_from_json(to_json(d));
  EXPECT_EQ(back.clock, 4u);
  EXPECT_EQ(back.sketch, d.sketch);
  auto j = to_json(d);
  j["sketch"] = std::vector<float>(3, 0.0f);
  EXPECT_THROW(replica_digest_from_json(j), ContractError);
  j = to_json(d);
  j.erase("norm");
  EXPECT_THROW(replica_digest_from_json(j), ContractError);
}

ReplicaDigest digest_of(const std::vector<float>& x, uint64_t waiting = 0) {
  ReplicaDigest d;
  double squared = 0;
  for (float v : x) squared += static_cast<double>(v) * v;
  d.norm = std::sqrt(squared);
  d.sketch = count_sketch(x);
  d.waiting_keys = waiting;
  return d;
}

TEST(ReplicaDivergence, MeasuresTheDriftAtTheHealAndHowLongItTakesToCatchUp) {
  // Two data centers polled once a second for 60 s; from 20 s to 40 s (the fault) the
  // second replica drifts by 1% of the norm a second, and after the heal it comes back
  // by 5% a second.
  const auto base = random_model(5000, 9);
  const auto drift = random_model(5000, 10);
  ReplicaDivergence div(2);
  for (int t = 0; t < 60; ++t) {
    double apart = 0.005;  // Gaia's usual difference: what the filter holds back
    if (t >= 20 && t <= 40) apart += 0.01 * (t - 20);
    if (t > 40) apart = std::max(0.005, 0.2 - 0.05 * (t - 40));
    auto other = base;
    for (size_t k = 0; k < other.size(); ++k) other[k] += static_cast<float>(apart) * drift[k];
    div.polled(t);
    EXPECT_FALSE(div.answered());
    div.reply(0, digest_of(base));
    div.reply(1, digest_of(other, t >= 20 && t <= 40 ? 100 : 0));
    EXPECT_TRUE(div.answered());
  }
  ASSERT_EQ(div.samples().size(), 60u);
  const auto s = div.summary(FaultWindow{20, 40});
  EXPECT_NEAR(s["before"].get<double>(), 0.005, 0.001);
  EXPECT_NEAR(s["at_heal"].get<double>(), 0.205, 0.02);
  EXPECT_NEAR(s["peak"].get<double>(), 0.205, 0.02);
  // Back to the 0.005 of the fault's start once 0.2 - 0.05 * t is: at 4 s after the heal.
  EXPECT_NEAR(s["caught_up_s"].get<double>(), 4.0, 1e-9);
  EXPECT_EQ(s["samples"][25][2], 100);
  // A fault before the first poll leaves no level to come back to.
  const auto early = div.summary(FaultWindow{-1, 40});
  EXPECT_TRUE(early["before"].is_null());
  EXPECT_TRUE(early["caught_up_s"].is_null());
  // None in the second before it: the last poll before it sets the level.
  EXPECT_NEAR(div.summary(FaultWindow{20.5, 40})["before"].get<double>(), 0.005, 0.001);
  const auto none = div.summary(std::nullopt);
  EXPECT_FALSE(none.contains("at_heal"));
  EXPECT_NEAR(none["max"].get<double>(), 0.205, 0.02);
}

TEST(ReplicaDivergence, ANewPollStartsFromNoReplies) {
  ReplicaDivergence div(2);
  const auto x = random_model(100, 1);
  div.polled(1);
  div.reply(0, digest_of(x));
  div.polled(2);  // node 1 never answered the first: node 0's answer is dropped
  div.reply(1, digest_of(x));
  EXPECT_TRUE(div.samples().empty());
  div.reply(0, digest_of(x));
  ASSERT_EQ(div.samples().size(), 1u);
  EXPECT_EQ(div.samples()[0].t, 2.0);
}

}  // namespace
}  // namespace testbed
