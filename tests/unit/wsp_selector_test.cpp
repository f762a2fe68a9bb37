// WSP's choice (DRPS Sec. 6): the gain of Eq. 7 weighs waiting against staleness, the
// first round is synchronous, waiting sets are answered together, delta is never passed.
#include "wsp_selector.h"

#include <gtest/gtest.h>

#include <cmath>

#include "server_shard.h"

namespace testbed {
namespace {

constexpr int64_t kS = 1'000'000'000;  // nanoseconds per second
constexpr int64_t kMs = 1'000'000;

// Three workers whose iterations took 1 s, 1.1 s and 5 s: clock 0 read together at 0,
// the synchronous first round complete at 5 s, every worker answered then.
WspSelector after_first_round(int delta) {
  WspSelector wsp(3, delta);
  for (int w = 0; w < 3; ++w) wsp.request(w, 0, {0, 0, 0}, 0);
  for (int w = 0; w < 3; ++w) wsp.answered(w, 0);
  wsp.request(0, 1, {1, 0, 0}, 1 * kS);
  EXPECT_FALSE(wsp.may_answer(0)) << "the first round waits for every worker";
  wsp.request(1, 1, {1, 1, 0}, 1 * kS + 100 * kMs);
  EXPECT_FALSE(wsp.may_answer(0));
  EXPECT_FALSE(wsp.may_answer(1)) << "held in worker 0's waiting set";
  wsp.request(2, 1, {1, 1, 1}, 5 * kS);
  for (int w = 0; w < 3; ++w) EXPECT_TRUE(wsp.may_answer(w)) << w;
  for (int w = 0; w < 3; ++w) wsp.answered(w, 5 * kS);
  EXPECT_EQ(wsp.counters().choices, 1u);
  EXPECT_EQ(wsp.counters().held, 2u);
  return wsp;
}

TEST(Wsp, AShortWaitThatRemovesStalenessIsTaken) {
  WspSelector wsp = after_first_round(3);
  // Worker 0 asks for clock 2 at 6 s; worker 1 is due at 6.1 s, worker 2 at 10 s.
  const std::vector<uint64_t> pushes = {2, 1, 1};
  const auto c = wsp.choose(0, pushes, 6 * kS);
  EXPECT_NEAR(c.gains.at(-1), -std::log(2.0), 1e-9) << "both others missed by one clock";
  EXPECT_NEAR(c.gains.at(1), -0.1 - std::log(2.0) / 2, 1e-9);
  EXPECT_NEAR(c.gains.at(2), -4.0, 1e-9) << "waits for 2 (and 1, due before it) 4 s";
  ASSERT_TRUE(c.wait_for.has_value());
  EXPECT_EQ(*c.wait_for, 1);
  EXPECT_EQ(c.waiting_set, std::vector<int>{1});
  EXPECT_FALSE(c.bound_forced);

  wsp.request(0, 2, pushes, 6 * kS);
  EXPECT_FALSE(wsp.may_answer(0));
  wsp.request(1, 2, {2, 2, 1}, 6 * kS + 100 * kMs);
  EXPECT_TRUE(wsp.may_answer(0));
  EXPECT_TRUE(wsp.may_answer(1)) << "the waiting set is answered together";
  EXPECT_EQ(wsp.counters().waited, 2u);
  EXPECT_NEAR(wsp.counters().expected_wait_s, 0.1, 1e-9);
}

TEST(Wsp, ALongWaitForLittleStalenessIsNot) {
  WspSelector wsp = after_first_round(3);
  // Worker 1 is level with worker 0; only the slow worker 2, due in 4 s, is behind.
  const auto c = wsp.choose(0, {2, 2, 1}, 6 * kS);
  EXPECT_FALSE(c.wait_for.has_value());
  EXPECT_NEAR(c.gains.at(-1), -std::log(2.0) / 2, 1e-9);
  EXPECT_FALSE(c.gains.contains(1)) << "a level worker is no candidate";
  wsp.request(0, 2, {2, 2, 1}, 6 * kS);
  EXPECT_TRUE(wsp.may_answer(0));
}

TEST(Wsp, TheStalenessBoundForcesAWaitWhateverItCosts) {
  WspSelector wsp = after_first_round(0);
  const auto c = wsp.choose(0, {2, 2, 1}, 6 * kS);
  EXPECT_TRUE(c.bound_forced);
  ASSERT_TRUE(c.wait_for.has_value()) << "answering now would miss a clock of worker 2";
  EXPECT_EQ(*c.wait_for, 2);
}

TEST(Wsp, AWorkerThatIsWaitingIsNeverWaitedFor) {
  WspSelector wsp = after_first_round(3);
  wsp.request(2, 2, {1, 1, 2}, 5 * kS + 10 * kMs);  // worker 2 asks early; 0 and 1 compute
  const auto c = wsp.choose(0, {2, 1, 2}, 6 * kS);
  EXPECT_FALSE(c.gains.contains(2)) << "2 is level with 0";
  EXPECT_TRUE(c.gains.contains(1));
}

TEST(Wsp, AShardUnderWspNeverServesAReadBeyondDelta) {
  // Worker 2 takes ten times longer per iteration; with delta 1 the fast ones may read
  // one clock ahead of it, never two.
  ServerShard s({0, 1}, 3, {Consistency::Kind::kWsp, 1}, std::vector<float>{0});
  const std::vector<float> one = {1.0f};
  std::vector<uint64_t> clock(3, 0);
  std::vector<bool> answered(3, false);
  uint64_t served = 0;
  const auto take = [&](const std::vector<PullReply>& replies) {
    for (const auto& r : replies) {
      EXPECT_LE(r.clock, r.min_clock + 1) << "worker " << r.worker;
      answered[static_cast<size_t>(r.worker)] = true;
      ++served;
    }
  };
  for (int w = 0; w < 3; ++w) take(s.pull(w, 0, true, {}, 0));
  for (int step = 1; step <= 300; ++step) {
    const int64_t now = step * 10 * kMs;
    for (int w = 0; w < 3; ++w) {
      if (!answered[static_cast<size_t>(w)] || (w == 2 && step % 10 != 0)) continue;
      answered[static_cast<size_t>(w)] = false;
      take(s.push(w, clock[static_cast<size_t>(w)], 0, true, {}, one, now));
      take(s.pull(w, ++clock[static_cast<size_t>(w)], true, {}, now));
    }
  }
  EXPECT_GE(clock[2], 29u);
  EXPECT_GE(clock[0], clock[2]) << "the fast workers were not held to the slow one's pace";
  EXPECT_GT(served, 60u);
  ASSERT_NE(s.wsp(), nullptr);
  EXPECT_GT(s.wsp()->counters().bound_forced, 0u) << "the fast workers met the bound";
}

}  // namespace
}  // namespace testbed
