// MLfabric's scheduling events and Gaia's mirror cuts (agent/contracts/mlfabric/mlfabric_events.h,
// gaia_events.h): what the agent writes the controller reads back field for field, and a
// missing, mistyped, out-of-range or unknown field is refused with its name, by the reader
// and by the controller's check of agents' replies (dropped, not thrown).
#include "agent/contracts/mlfabric/mlfabric_events.h"

#include <gtest/gtest.h>

#include "agent/contracts/gaia/gaia_events.h"
#include "agent/contracts/message_fields.h"
#include "controller/training/agent_reply.h"

namespace testbed {
namespace {

constexpr uint64_t kMaxClock = 100;
constexpr size_t kNodes = 4;

// The refusal's text, which names the field; "" when the event is taken.
std::string refusal(const nlohmann::json& j) {
  try {
    check_mlfabric_event(j, kNodes, kMaxClock);
    check_gaia_event(j, kNodes);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json with(nlohmann::json j, const char* field, nlohmann::json v) {
  j[field] = std::move(v);
  return j;
}

nlohmann::json without(nlohmann::json j, const char* field) {
  j.erase(field);
  return j;
}

TEST(MlfabricEvents, EachRoundTripsThroughItsJson) {
  const auto u = update_announced_from_json(to_json(UpdateAnnounced{7, 3, 4096, 2.5}), kMaxClock);
  EXPECT_EQ(u.clock, 7u);
  EXPECT_EQ(u.version, 3u);
  EXPECT_EQ(u.bytes, 4096u);
  EXPECT_DOUBLE_EQ(u.norm, 2.5);
  const auto p = pull_batch_from_json(to_json(PullBatch{9, {1, 3}, {4, 5}}), kNodes, kMaxClock);
  EXPECT_EQ(p.batch, 9u);
  EXPECT_EQ(p.workers, (std::vector<size_t>{1, 3}));
  EXPECT_EQ(p.clocks, (std::vector<uint64_t>{4, 5}));
  EXPECT_EQ(update_arrived_from_json(to_json(UpdateArrived{11})).seq, 11u);
  EXPECT_EQ(replica_applied_from_json(to_json(ReplicaApplied{12})).applied, 12u);
  const auto cut = mirror_cut_from_json(to_json(MirrorCut{2, true}), kNodes);
  EXPECT_EQ(cut.node, 2u);
  EXPECT_TRUE(cut.cut);
  // What the agent writes passes the controller's check unchanged.
  for (const auto& j :
       {to_json(UpdateAnnounced{7, 3, 4096, 2.5}), to_json(PullBatch{9, {1}, {4}}),
        to_json(UpdateArrived{11}), to_json(ReplicaApplied{12}), to_json(MirrorCut{2, false})}) {
    const auto decoded = decode_agent_reply("0", j.dump(), kNodes, kMaxClock);
    ASSERT_TRUE(decoded) << j.dump();
    EXPECT_EQ(decoded->second, j);
  }
}

TEST(MlfabricEvents, AMalformedEventIsRefusedByName) {
  const nlohmann::json update = to_json(UpdateAnnounced{1, 1, 400, 1.0});
  const nlohmann::json pulls = to_json(PullBatch{0, {1, 2}, {3, 3}});
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {without(update, "norm"), "update.norm is missing"},
      {with(update, "norm", -1.0), "update.norm is no finite number"},
      {with(update, "bytes", -400), "update.bytes holds a value that is no whole number"},
      {with(update, "bytes", 2.5), "update.bytes holds a value that is no whole number"},
      {with(update, "clock", kMaxClock + 1), "update.clock is 101, outside"},
      {with(update, "extra", 1), "update.extra is not a field"},
      {with(pulls, "workers", {1, 1}), "pulls.workers names node 1 twice"},
      {with(pulls, "workers", {1, 4}), "pulls.workers is 4, outside"},
      {with(pulls, "workers", "1,2"), "pulls.workers is missing or not a list"},
      {with(pulls, "clocks", {3}), "pulls.clocks holds 1 clocks for 2 workers"},
      {with(with(pulls, "workers", nlohmann::json::array()), "clocks", nlohmann::json::array()),
       "pulls.clocks holds 0 clocks for 0 workers"},
      {without(to_json(UpdateArrived{1}), "seq"), "arrived.seq is missing"},
      {with(to_json(ReplicaApplied{1}), "applied", "all"), "replica.applied holds a value"},
      {with(to_json(MirrorCut{1, true}), "node", 4), "mirror_cut.node is 4, outside"},
      {with(to_json(MirrorCut{1, true}), "cut", 1), "mirror_cut.cut has the wrong type"},
  };
  for (const auto& [j, expected] : cases) {
    EXPECT_NE(refusal(j).find(expected), std::string::npos) << j.dump() << " -> " << refusal(j);
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), kNodes, kMaxClock)) << j.dump();
  }
  // Other events are left to their own readers.
  EXPECT_EQ(refusal({{"event", "stats"}, {"anything", 1}}), "");
}

}  // namespace
}  // namespace testbed
