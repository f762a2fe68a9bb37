// The parameter server's shard in memory: when each consistency model answers a pull,
// what it applies, and the staleness it records; then many workers of random speeds in
// random delivery order, checking the SSP bound at every answer and that no update is
// lost or counted twice.
#include "agent/protocols/ps/server_shard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "agent/protocols/drps/wsp_selector.h"

namespace testbed {
namespace {

ServerShard shard(Consistency model, int workers = 3) {
  return ServerShard({10, 14}, workers, model, {0, 0, 0, 0});
}
std::vector<float> ones() {
  return {1, 1, 1, 1};
}

TEST(ServerShard, BspAppliesAClockAtOnceAndAnswersOnlyThen) {
  auto s = shard({Consistency::Kind::kBsp, 0});
  EXPECT_EQ(s.pull(0, 0, true, {}).size(), 1u);  // clock 0 needs nothing
  EXPECT_TRUE(s.push(2, 0, 0, true, {}, ones(), 1).empty());
  EXPECT_TRUE(s.pull(2, 1, true, {}).empty());
  EXPECT_TRUE(s.push(0, 0, 0, true, {}, ones(), 2).empty());
  EXPECT_EQ(s.values()[0], 0.0f) << "nothing applied before the clock's last update";
  const auto replies = s.push(1, 0, 0, false, {10, 13}, {5, 5}, 3);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].worker, 2);
  EXPECT_EQ(replies[0].min_clock, 1u);
  EXPECT_EQ(s.values(), (std::vector<float>{7, 2, 2, 7}));
  EXPECT_EQ(s.applied_ns()[2], std::vector<int64_t>{3}) << "all take effect with the last";
  EXPECT_EQ(s.staleness_histogram().at(0), 3u);
}

TEST(ServerShard, SspLetsAWorkerRunAtMostSClocksAhead) {
  auto s = shard({Consistency::Kind::kSsp, 1});
  // Worker 0 races: clock 1 needs min clock 0, granted; clock 2 needs every worker at 1.
  s.push(0, 0, 0, true, {}, ones(), 1);
  EXPECT_EQ(s.pull(0, 1, true, {}).size(), 1u);
  EXPECT_EQ(s.values()[0], 1.0f) << "applied as it arrives";
  s.push(0, 1, 0, true, {}, ones(), 2);
  EXPECT_TRUE(s.pull(0, 2, true, {}).empty());
  EXPECT_TRUE(s.push(1, 0, 0, true, {}, ones(), 3).empty());
  const auto replies = s.push(2, 0, 0, true, {}, ones(), 4);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].clock, 2u);
  EXPECT_EQ(replies[0].min_clock, 1u);
  EXPECT_EQ(s.staleness_histogram().at(1), 1u) << "worker 0's clock 1 read min clock 0";
}

TEST(ServerShard, AsyncNeverWaitsAndRecordsStaleness) {
  auto s = shard({Consistency::Kind::kAsync, 0});
  for (uint64_t c = 0; c < 5; ++c) {
    s.push(0, c, 0, true, {}, ones(), 1);
    EXPECT_EQ(s.pull(0, c + 1, true, {}).size(), 1u);
  }
  EXPECT_EQ(s.staleness_histogram().at(4), 1u);
  EXPECT_EQ(s.values()[3], 5.0f);
}

TEST(ServerShard, LatestPullsAnswerAtOnceAndBadMessagesAreRefused) {
  auto s = shard({Consistency::Kind::kBsp, 0});
  EXPECT_TRUE(s.pull(0, 3, false, {11}).empty());
  const auto r = s.pull(0, 3, false, {11, 12}, /*latest=*/true);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].latest);
  EXPECT_EQ(r[0].keys, (std::vector<uint32_t>{11, 12}));
  EXPECT_THROW(s.push(0, 1, 0, true, {}, ones(), 1), std::runtime_error) << "clock skipped";
  EXPECT_THROW(s.push(0, 0, 0, false, {9}, {1}, 1), std::runtime_error) << "outside the range";
  EXPECT_THROW(s.pull(0, 0, false, {14}), std::runtime_error);
}

TEST(ServerShard, MlfabricSAppliesAClocksPlacesTogetherDirectOrSummed) {
  // Three workers: place 0 comes alone, places 1-2 as an aggregator's sum.
  auto s = shard({Consistency::Kind::kBsp, 0});
  EXPECT_TRUE(s.pull(0, 1, true, {}).empty()) << "clock 1 waits for clock 0's updates";
  EXPECT_TRUE(s.push_ordered(1, true, {}, ones()).empty());
  EXPECT_EQ(s.values()[0], 0.0f) << "nothing applied before the clock's last place";
  const auto replies = s.push_ordered(2, false, {11}, {6});
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].min_clock, 1u);
  EXPECT_EQ(s.values(), (std::vector<float>{1, 7, 1, 1}));
  EXPECT_EQ(s.updates_applied(), 3u);
  // A sum reaching past the clock's W places would mix two clocks.
  EXPECT_TRUE(s.push_ordered(2, true, {}, ones()).empty());
  EXPECT_THROW(s.push_ordered(2, true, {}, ones()), std::runtime_error);
}

TEST(KeyRanges, CoverTheKeysInNearEqualParts) {
  const auto r = split_keys(10, 4);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r.front().begin, 0u);
  EXPECT_EQ(r.back().end, 10u);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_GE(r[i].size(), 2u);
    EXPECT_LE(r[i].size(), 3u);
    if (i) {
      EXPECT_EQ(r[i].begin, r[i - 1].end);
    }
  }
  EXPECT_THROW(split_keys(10, 0), std::invalid_argument);
}

// Workers of random speeds push and pull in random delivery order; every answer must keep
// the model's bound, and at the end the values are the sum of every update exactly once.
void simulate(Consistency model, int workers, int clocks, uint64_t seed) {
  ServerShard s({0, 1}, workers, model, std::vector<float>{0});
  std::mt19937_64 rng(seed);
  struct Msg {
    bool push;
    int worker;
    uint64_t clock, read;
  };
  std::vector<Msg> wire;
  std::vector<uint64_t> clock(static_cast<size_t>(workers), 0), read(clock.size(), 0);
  std::vector<bool> waiting(clock.size(), false);
  for (int w = 0; w < workers; ++w) wire.push_back({false, w, 0, 0});
  for (int w = 0; w < workers; ++w) waiting[static_cast<size_t>(w)] = true;
  int answered = 0;
  constexpr uint64_t kMaxStepNs = 10'000'000;
  int64_t now_ns = 0;
  // WSP: the job's master, asked beside each pull; its grants reach the shard at once.
  const bool wsp = model.kind == Consistency::Kind::kWsp;
  WspSelector master(workers, std::max(model.staleness, 0));
  std::vector<int64_t> started(clock.size(), 0);
  const auto deliver = [&](const std::vector<PullReply>& replies) {
    for (const auto& r : replies) {
      if (wsp) master.started(r.worker, now_ns);
      started[static_cast<size_t>(r.worker)] = now_ns;
      if (model.kind != Consistency::Kind::kAsync) {
        ASSERT_GE(r.min_clock + static_cast<uint64_t>(model.staleness), r.clock);
      }
      auto w = static_cast<size_t>(r.worker);
      waiting[w] = false;
      read[w] = r.min_clock;
      ++answered;
      if (clock[w] < static_cast<uint64_t>(clocks)) {
        wire.push_back({true, r.worker, clock[w], read[w]});
        wire.push_back({false, r.worker, ++clock[w], 0});
        waiting[w] = true;
      }
    }
  };
  while (!wire.empty()) {
    // Any message may be next, except that a worker's own messages stay in order (one
    // TCP connection per pair).
    std::vector<size_t> heads;
    for (size_t i = 0; i < wire.size(); ++i) {
      bool first = true;
      for (size_t j = 0; j < i; ++j) first &= wire[j].worker != wire[i].worker;
      if (first) heads.push_back(i);
    }
    const size_t pick = heads[rng() % heads.size()];
    const Msg m = wire[pick];
    // Time moves by a random step per message, so WSP's iteration times differ.
    now_ns += static_cast<int64_t>(rng() % kMaxStepNs);
    wire.erase(wire.begin() + static_cast<std::ptrdiff_t>(pick));
    if (m.push) {
      deliver(s.push(m.worker, m.clock, m.read, true, {}, {1.0f}, now_ns));
    } else {
      deliver(s.pull(m.worker, m.clock, true, {}));
      if (wsp) {
        const double iter_s =
            static_cast<double>(now_ns - started[static_cast<size_t>(m.worker)]) / 1e9;
        for (const auto& g : master.request(m.worker, m.clock, iter_s, now_ns))
          deliver(s.grant(g.worker, g.clock, master.pushes()));
      }
    }
  }
  EXPECT_EQ(answered, workers * (clocks + 1));
  EXPECT_EQ(s.values()[0], static_cast<float>(workers * clocks));
  EXPECT_EQ(s.updates_applied(), static_cast<uint64_t>(workers * clocks));
  uint64_t worst = 0;
  for (const auto& [st, n] : s.staleness_histogram()) worst = std::max(worst, st);
  if (model.kind != Consistency::Kind::kAsync) {
    EXPECT_LE(worst, uint64_t(model.staleness));
  }
}

TEST(ServerShard, RandomDeliveryKeepsEveryBoundAndEveryUpdateOnce) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    simulate({Consistency::Kind::kBsp, 0}, 4, 6, seed);
    simulate({Consistency::Kind::kSsp, 2}, 4, 6, seed);
    simulate({Consistency::Kind::kAsync, 0}, 4, 6, seed);
    simulate({Consistency::Kind::kWsp, 0}, 4, 6, seed);
    simulate({Consistency::Kind::kWsp, 2}, 4, 6, seed);
  }
}

}  // namespace
}  // namespace testbed
