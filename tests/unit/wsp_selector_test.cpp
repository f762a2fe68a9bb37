// WSP's choice (DRPS Sec. 6) as the job's one master makes it: the gain of Eq. 7 weighs
// waiting against staleness, the first round is synchronous, waiting sets are answered
// together, iteration times are the workers' own, each wait is logged with its estimate
// and its realized length, and delta is never passed -- by the shards, which answer a read
// only once the master's grant is in and the pushes it names are applied.
#include "agent/protocols/drps/wsp_selector.h"

#include <gtest/gtest.h>

#include <cmath>

#include "agent/protocols/ps/server_shard.h"

namespace testbed {
namespace {

constexpr int64_t kS = 1'000'000'000;  // nanoseconds per second
constexpr int64_t kMs = 1'000'000;

std::vector<WspGrant> grants(std::initializer_list<std::pair<int, uint64_t>> g) {
  std::vector<WspGrant> out;
  for (const auto& [w, c] : g) out.push_back({w, c});
  return out;
}

// Three workers whose iterations took 1 s, 1.1 s and 5 s: clock 0 began together at 0, the
// synchronous first round complete at 5 s, every worker answered then and started at once.
WspSelector after_first_round(int delta) {
  WspSelector wsp(3, delta);
  for (int w = 0; w < 3; ++w) wsp.started(w, 0);
  EXPECT_TRUE(wsp.request(0, 1, 1.0, 1 * kS).empty()) << "the first round waits for every worker";
  EXPECT_TRUE(wsp.request(1, 1, 1.1, 1 * kS + 100 * kMs).empty()) << "held in 0's waiting set";
  EXPECT_EQ(wsp.request(2, 1, 5.0, 5 * kS), grants({{0, 1}, {1, 1}, {2, 1}}));
  for (int w = 0; w < 3; ++w) wsp.started(w, 5 * kS);
  EXPECT_EQ(wsp.counters().choices, 1u);
  EXPECT_EQ(wsp.counters().held, 2u);
  EXPECT_EQ(wsp.pushes(), (std::vector<uint64_t>{1, 1, 1}));
  return wsp;
}

TEST(Wsp, AShortWaitThatRemovesStalenessIsTakenAndLoggedWithItsRealLength) {
  WspSelector wsp = after_first_round(3);
  // Worker 0 asks for clock 2 at 6 s; worker 1 is due at 6.1 s, worker 2 at 10 s.
  EXPECT_TRUE(wsp.request(0, 2, 1.0, 6 * kS).empty());
  const auto c = wsp.choose(0, 6 * kS);
  EXPECT_NEAR(c.gains.at(-1), -std::log(2.0), 1e-9) << "both others missed by one clock";
  EXPECT_NEAR(c.gains.at(1), -0.1 - std::log(2.0) / 2, 1e-9);
  EXPECT_NEAR(c.gains.at(2), -4.0, 1e-9) << "waits for 2 (and 1, due before it) 4 s";
  ASSERT_TRUE(c.wait_for.has_value());
  EXPECT_EQ(*c.wait_for, 1);
  EXPECT_EQ(c.waiting_set, std::vector<int>{1});
  EXPECT_FALSE(c.bound_forced);
  // Worker 1 comes 0.3 s late: the set is answered together, and the wait's real length
  // is logged beside the estimate.
  EXPECT_EQ(wsp.request(1, 2, 1.4, 6 * kS + 300 * kMs), grants({{0, 2}, {1, 2}}));
  EXPECT_EQ(wsp.counters().waited, 2u);
  EXPECT_NEAR(wsp.counters().expected_wait_s, 0.1, 1e-9);
  ASSERT_EQ(wsp.waits().size(), 2u);
  const WspWait& w = wsp.waits()[1];
  EXPECT_EQ(w.worker, 0);
  EXPECT_EQ(w.clock, 2u);
  EXPECT_NEAR(w.estimated_s, 0.1, 1e-9);
  EXPECT_NEAR(w.realized_s, 0.3, 1e-9);
  EXPECT_FALSE(w.forced);
  EXPECT_NEAR(wsp.waits()[0].realized_s, 4.0, 1e-9) << "the first round: 1 s to 5 s";
}

TEST(Wsp, ALongWaitForLittleStalenessIsNot) {
  WspSelector wsp = after_first_round(3);
  // Worker 1 asks at 6.1 s and waits for 0, due at 6 s; 0 asks at 6.2 s: both go.
  EXPECT_TRUE(wsp.request(1, 2, 1.1, 6 * kS + 100 * kMs).empty());
  EXPECT_EQ(wsp.request(0, 2, 1.0, 6 * kS + 200 * kMs), grants({{0, 2}, {1, 2}}));
  // Worker 0 is level with 1; only the slow worker 2, due in 3.8 s, is behind.
  const auto c = wsp.choose(0, 6 * kS + 200 * kMs);
  EXPECT_FALSE(c.wait_for.has_value());
  EXPECT_NEAR(c.gains.at(-1), -std::log(2.0) / 2, 1e-9);
  EXPECT_FALSE(c.gains.contains(1)) << "a level worker is no candidate";
}

TEST(Wsp, TheStalenessBoundForcesAWaitWhateverItCosts) {
  WspSelector wsp = after_first_round(0);
  EXPECT_TRUE(wsp.request(1, 2, 1.1, 6 * kS + 100 * kMs).empty());
  wsp.request(0, 2, 1.0, 6 * kS + 200 * kMs);
  const auto c = wsp.choose(0, 6 * kS + 200 * kMs);
  EXPECT_TRUE(c.bound_forced);
  ASSERT_TRUE(c.wait_for.has_value()) << "answering now would miss a clock of worker 2";
  EXPECT_EQ(*c.wait_for, 2);
}

TEST(Wsp, WithNoBoundNothingIsForced) {
  WspSelector wsp = after_first_round(kWspNoBound);
  EXPECT_TRUE(wsp.request(1, 2, 1.1, 6 * kS + 100 * kMs).empty());
  wsp.request(0, 2, 1.0, 6 * kS + 200 * kMs);
  const auto c = wsp.choose(0, 6 * kS + 200 * kMs);
  EXPECT_FALSE(c.bound_forced);
  EXPECT_FALSE(c.wait_for.has_value());
}

// The first round of after_first_round, every worker answered at 5 s and none started.
WspSelector answered_at_five() {
  WspSelector wsp(3, 3);
  for (int w = 0; w < 3; ++w) wsp.started(w, 0);
  wsp.request(0, 1, 1.0, 1 * kS);
  wsp.request(1, 1, 1.1, 1 * kS + 100 * kMs);
  wsp.request(2, 1, 5.0, 5 * kS);
  return wsp;
}

TEST(Wsp, TheWorkersWordOfItsStartMovesWhenItIsDue) {
  // Before worker 1's word: due at its answer (5 s) plus its last read (none yet) plus its
  // iteration, 6.1 s, and worker 0 waits 0.1 s for it.
  WspSelector before = answered_at_five();
  before.started(0, 5 * kS);
  before.started(2, 5 * kS);
  EXPECT_TRUE(before.request(0, 2, 1.0, 6 * kS).empty());
  EXPECT_NEAR(before.choose(0, 6 * kS).gains.at(1), -0.1 - std::log(2.0) / 2, 1e-9);
  // Its parameters arrived 0.5 s after it was answered: it is due at 6.6 s, and the 0.6 s
  // wait is no longer worth it to worker 0.
  WspSelector after = answered_at_five();
  after.started(0, 5 * kS);
  after.started(2, 5 * kS);
  after.started(1, 5 * kS + 500 * kMs);
  after.started(1, 5 * kS + 900 * kMs);  // a repeated word changes nothing
  EXPECT_EQ(after.request(0, 2, 1.0, 6 * kS), grants({{0, 2}}));
  EXPECT_NEAR(after.choose(0, 6 * kS).gains.at(1), -0.6 - std::log(2.0) / 2, 1e-9);
}

TEST(Wsp, AWorkerStillReadingIsDueAfterItsLastRead) {
  // Worker 1 took 0.5 s to read clock 1. Answered again at 6.7 s and still reading, it is
  // due at 6.7 + 0.5 + 1.1 s: on a disk-resident store the read is most of a clock.
  WspSelector wsp = answered_at_five();
  wsp.started(0, 5 * kS);
  wsp.started(2, 5 * kS);
  wsp.started(1, 5 * kS + 500 * kMs);
  EXPECT_TRUE(wsp.request(1, 2, 1.1, 6 * kS + 600 * kMs).empty()) << "waits for 0, due at 6 s";
  EXPECT_EQ(wsp.request(0, 2, 1.0, 6 * kS + 700 * kMs), grants({{0, 2}, {1, 2}}));
  wsp.started(0, 6 * kS + 700 * kMs);
  wsp.request(0, 3, 1.0, 7 * kS + 700 * kMs);
  EXPECT_NEAR(wsp.choose(0, 7 * kS + 700 * kMs).gains.at(1), -0.6 - std::log(3.0) / 2, 1e-9);
}

TEST(Wsp, AWorkerHeldInAWaitingSetMakesNoChoiceOfItsOwn) {
  WspSelector wsp = after_first_round(3);
  // Worker 2 asks first, reporting a long iteration: waiting is cheap to it, and it waits
  // for 0 and 1. Worker 0 then asks and is held in that set, choosing nothing.
  EXPECT_TRUE(wsp.request(2, 2, 5.0, 5 * kS + 10 * kMs).empty());
  EXPECT_EQ(wsp.counters().choices, 2u);
  EXPECT_TRUE(wsp.request(0, 2, 1.0, 6 * kS).empty());
  EXPECT_EQ(wsp.counters().choices, 2u);
  EXPECT_EQ(wsp.counters().held, 3u);
  EXPECT_EQ(wsp.request(1, 2, 1.1, 6 * kS + 100 * kMs), grants({{0, 2}, {1, 2}, {2, 2}}));
}

TEST(Wsp, AShardAnswersAGrantedReadOnceThePushesItNamesAreApplied) {
  ServerShard s({0, 1}, 3, {Consistency::Kind::kWsp, 3}, std::vector<float>{0});
  const std::vector<float> one = {1.0f};
  EXPECT_EQ(s.pull(0, 0, true, {}).size(), 1u) << "clock 0 needs no grant";
  EXPECT_TRUE(s.push(0, 0, 0, true, {}, one, 0).empty());
  EXPECT_TRUE(s.pull(0, 1, true, {}).empty()) << "no grant yet";
  EXPECT_TRUE(s.grant(0, 1, {1, 1, 0}).empty()) << "worker 1's push is not here yet";
  const auto r = s.push(1, 0, 0, true, {}, one, 0);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].worker, 0);
  EXPECT_FLOAT_EQ(r[0].values[0], 2.0f);
  EXPECT_THROW(s.grant(0, 2, {1, 1}), std::invalid_argument) << "a grant naming two of three";
  EXPECT_THROW(s.grant(3, 2, {1, 1, 1}), std::invalid_argument) << "no worker 3";
}

TEST(Wsp, MasterAndShardsNeverServeAReadBeyondDelta) {
  // Worker 2 takes ten times longer per iteration; with delta 1 the fast ones may read
  // one clock ahead of it, never two. Messages arrive at once, in order.
  WspSelector wsp(3, 1);
  ServerShard s({0, 1}, 3, {Consistency::Kind::kWsp, 1}, std::vector<float>{0});
  const std::vector<float> one = {1.0f};
  std::vector<uint64_t> clock(3, 0);
  std::vector<int64_t> started(3, -1);
  uint64_t served = 0;
  int64_t now = 0;
  const auto take = [&](const std::vector<PullReply>& replies) {
    for (const auto& r : replies) {
      EXPECT_LE(r.clock, r.min_clock + 1) << "worker " << r.worker;
      started[static_cast<size_t>(r.worker)] = now;
      wsp.started(r.worker, now);
      ++served;
    }
  };
  for (int w = 0; w < 3; ++w) take(s.pull(w, 0, true, {}));
  for (int step = 1; step <= 300; ++step) {
    now = step * 10 * kMs;
    for (int w = 0; w < 3; ++w) {
      auto& st = started[static_cast<size_t>(w)];
      if (st < 0 || (w == 2 && step % 10 != 0)) continue;
      const double iter_s = static_cast<double>(now - st) / 1e9;
      st = -1;
      auto& c = clock[static_cast<size_t>(w)];
      take(s.push(w, c, 0, true, {}, one, now));
      ++c;
      const auto go = wsp.request(w, c, iter_s, now);
      take(s.pull(w, c, true, {}));
      for (const auto& g : go) take(s.grant(g.worker, g.clock, wsp.pushes()));
    }
  }
  EXPECT_GE(clock[2], 29u);
  EXPECT_GE(clock[0], clock[2]) << "the fast workers were not held to the slow one's pace";
  EXPECT_GT(served, 60u);
  EXPECT_GT(wsp.counters().bound_forced, 0u) << "the fast workers met the bound";
  EXPECT_EQ(wsp.waits().size(), wsp.counters().waited);
}

}  // namespace
}  // namespace testbed
