// An elastic all-reduce (agent/contracts/elastic_messages.h, agent/protocols/allreduce/
// elastic_reduce.h): the ring reforms over whoever is left. A member dies mid-round; those
// left begin the round again over a ring of their own, with the values they held, and every
// one ends with the sum of theirs. The messages between controller and agents are refused
// by field when malformed.
#include <gtest/gtest.h>

#include <random>

#include "agent/contracts/elastic_messages.h"
#include "agent/contracts/message_fields.h"
#include "agent/contracts/ps_elastic_messages.h"
#include "agent/protocols/allreduce/all_reduce.h"

namespace testbed {
namespace {

std::vector<float> values_of(int worker, size_t n) {
  std::mt19937 rng(static_cast<unsigned>(worker) + 1);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// Runs one ring among `members` (worker ids) until it ends or, when `dies` is set, until
// that member has sent `sends_before_death` messages; returns each live member's sum (empty
// if its round did not end).
std::map<int, std::vector<float>> ring(const std::vector<int>& members, size_t n, int dies = -1,
                                       int sends_before_death = 0) {
  struct InFlight {
    int from;
    AllReduceMessage m;
  };
  const int w = static_cast<int>(members.size());
  std::vector<std::unique_ptr<AllReduce>> all;
  std::vector<InFlight> pool;
  int sent_by_dying = 0;
  auto post = [&](int rank, std::vector<AllReduceMessage> out) {
    for (auto& m : out) {
      if (members[static_cast<size_t>(rank)] == dies && sent_by_dying++ >= sends_before_death)
        continue;  // dead: what it would send is never sent
      pool.push_back({rank, std::move(m)});
    }
  };
  for (int r = 0; r < w; ++r) all.push_back(make_all_reduce("ring", n, w, r));
  for (int r = 0; r < w; ++r)
    post(r, all[static_cast<size_t>(r)]->begin(values_of(members[static_cast<size_t>(r)], n)));
  while (!pool.empty()) {
    InFlight f = std::move(pool.front());
    pool.erase(pool.begin());
    if (members[static_cast<size_t>(f.m.to)] == dies && sent_by_dying > sends_before_death)
      continue;  // to the dead
    post(f.m.to, all[static_cast<size_t>(f.m.to)]->incoming(f.from, f.m.tag, f.m.values));
  }
  std::map<int, std::vector<float>> sums;
  for (int r = 0; r < w; ++r)
    if (members[static_cast<size_t>(r)] != dies && all[static_cast<size_t>(r)]->done())
      sums[members[static_cast<size_t>(r)]] = all[static_cast<size_t>(r)]->sum();
  return sums;
}

TEST(ElasticAllReduce, ARoundCutShortByADeathIsReducedAgainOverThoseLeft) {
  constexpr size_t kValues = 40;
  // Worker 2 of four dies after its first two messages: the round ends nowhere.
  const auto cut = ring({0, 1, 2, 3}, kValues, 2, 2);
  EXPECT_TRUE(cut.empty()) << cut.size() << " members ended a round a member died in";
  // The controller names the members left; each begins again with the values it held.
  const auto again = ring({0, 1, 3}, kValues);
  ASSERT_EQ(again.size(), 3u);
  std::vector<float> expected(kValues, 0.0f);
  for (int m : {0, 1, 3}) {
    const auto v = values_of(m, kValues);
    for (size_t i = 0; i < kValues; ++i) expected[i] += v[i];
  }
  for (const auto& [member, sum] : again) {
    EXPECT_EQ(sum, again.at(0)) << "member " << member << " holds another sum";
    for (size_t i = 0; i < kValues; ++i) EXPECT_NEAR(sum[i], expected[i], 1e-5) << i;
  }
}

TEST(ElasticAllReduce, TheControllersMessagesAreReadByTheirContract) {
  const ReduceCommand c{7, {3, 0, 2}};
  EXPECT_EQ(reduce_command_from_json(to_json(c), 4).members, c.members);
  EXPECT_EQ(reduce_command_from_json(to_json(c), 4).seq, 7u);
  EXPECT_EQ(commit_command_from_json(to_json(CommitCommand{7, 3}), 4).members, 3);
  EXPECT_EQ(round_ready_from_json(to_json(RoundReady{5})).round, 5u);
  EXPECT_TRUE(round_ready_from_json(to_json(RoundReady{5, true})).last);
  EXPECT_FALSE(round_ready_from_json({{"event", "round_ready"}, {"round", 2}}).last);
  EXPECT_EQ(round_reduced_from_json(to_json(RoundReduced{9})).seq, 9u);
  auto refused = [](auto read) {
    try {
      read();
    } catch (const ContractError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refused([] {
              reduce_command_from_json(to_json(ReduceCommand{1, {0, 0}}), 4);
            }).find("twice"),
            std::string::npos);
  EXPECT_NE(refused([] {
              reduce_command_from_json(to_json(ReduceCommand{1, {5}}), 4);
            }).find("members"),
            std::string::npos);
  EXPECT_NE(refused([] {
              reduce_command_from_json(to_json(ReduceCommand{1, {}}), 4);
            }).find("members"),
            std::string::npos);
  EXPECT_NE(refused([] {
              commit_command_from_json(to_json(CommitCommand{1, 0}), 4);
            }).find("members"),
            std::string::npos);
  EXPECT_NE(refused([] {
              round_ready_from_json({{"event", "round_ready"}, {"round", 2}, {"last", "yes"}});
            }).find("last"),
            std::string::npos);
  nlohmann::json extra = to_json(RoundReady{1});
  extra["x"] = 1;
  EXPECT_NE(refused([&] { round_ready_from_json(extra); }).find("x"), std::string::npos);
}

// The elastic parameter server's messages (ps_elastic_messages.h): the clock a worker left
// or joined at, refused by field when malformed.
TEST(ElasticAllReduce, TheElasticServersMessagesAreReadByTheirContract) {
  EXPECT_EQ(ps_left_from_json(to_json(PsLeft{12})).clock, 12u);
  EXPECT_EQ(ps_joined_from_json(to_json(PsJoined{3})).clock, 3u);
  EXPECT_EQ(to_json(PsLeaveCommand{})["cmd"], "ps_leave");
  EXPECT_EQ(to_json(PsJoinCommand{})["cmd"], "ps_join");
  EXPECT_THROW(ps_left_from_json({{"event", "ps_left"}, {"clock", -1}}), ContractError);
  EXPECT_THROW(ps_joined_from_json({{"event", "ps_joined"}}), ContractError);
  EXPECT_THROW(ps_left_from_json({{"event", "ps_left"}, {"clock", 1}, {"x", 1}}), ContractError);
}

}  // namespace
}  // namespace testbed
