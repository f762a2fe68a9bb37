// Gaia's section of a data center's final report (agent/contracts/gaia/gaia_report.h): what
// the agent writes the controller reads back field for field; another system's report has
// none; a malformed section is refused with its name, by the reader and by the
// controller's check of agents' replies (dropped).
#include "agent/contracts/gaia/gaia_report.h"

#include <gtest/gtest.h>

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"
#include "controller/training/agent_reply.h"
#include "tests/support/report_fixtures.h"

namespace testbed {
namespace {

constexpr size_t kNodes = 3;

GaiaSection a_section() {
  GaiaSection g{.updates = 100, .significant = 4, .soft_significant = 1, .data_bytes = 4096};
  g.blocked_s_barrier = 0.5;
  g.clocks = 3;
  g.partition = "block";
  g.mirror_watch[2] = {2.0, 0.7, 1, 3.5, true};
  g.filtered_by_clock = {10, 20, 30};
  g.sent_by_clock = {1, 2, 3};
  g.worker_updates = {{0.01, 0.1}, {5, 6, 7}, {{1, 1, 1}, {4, 5, 6}}};
  return g;
}

nlohmann::json a_report() {
  nlohmann::json j;
  write_van_counters(j, VanCounters{});
  j["event"] = kStatsEvent;
  write_gaia_section(j, a_section());
  return j;
}

std::string refusal(const nlohmann::json& j) {
  try {
    gaia_section_from(j, kNodes);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TEST(GaiaReport, RoundTripsAndIsAbsentElsewhere) {
  const nlohmann::json j = a_report();
  EXPECT_EQ(j["gaia"]["significant"], 4);  // where the docs have always found it
  EXPECT_EQ(j["gaia"]["per_clock"]["sent"], nlohmann::json({1, 2, 3}));
  const auto g = gaia_section_from(nlohmann::json::parse(j.dump()), kNodes);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->soft_significant, 1u);
  EXPECT_EQ(g->data_bytes, 4096u);
  EXPECT_DOUBLE_EQ(g->blocked_s_barrier, 0.5);
  EXPECT_EQ(g->partition, "block");
  ASSERT_EQ(g->mirror_watch.count(2), 1u);
  EXPECT_TRUE(g->mirror_watch.at(2).cut_now);
  EXPECT_DOUBLE_EQ(g->mirror_watch.at(2).presumed_cut_s, 3.5);
  EXPECT_EQ(g->filtered_by_clock, (std::vector<uint64_t>{10, 20, 30}));
  EXPECT_EQ(g->worker_updates.below[1], (std::vector<uint64_t>{4, 5, 6}));
  EXPECT_EQ(nlohmann::json(*g), j["gaia"]);
  EXPECT_TRUE(decode_agent_reply("0", j.dump(), kNodes));
  nlohmann::json other = j;
  other.erase("gaia");
  EXPECT_FALSE(gaia_section_from(other, kNodes));
}

TEST(GaiaReport, AMalformedSectionIsRefusedByName) {
  const nlohmann::json good = a_report();
  const auto with = [&](std::vector<std::string> path, nlohmann::json v) {
    path.insert(path.begin(), "gaia");
    return tb::test::with_field(good, path, std::move(v));
  };
  const nlohmann::json& gone = tb::test::kRemoved;
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {with({"updates"}, -1), "stats.gaia.updates holds a value"},
      {with({"hub_bytes"}, gone), "stats.gaia.hub_bytes is missing"},
      {with({"blocked_s_mirror_clock"}, "long"), "stats.gaia.blocked_s_mirror_clock has the"},
      {with({"partition"}, "sometimes"), "stats.gaia.partition is neither"},
      {with({"mirror_watch", "7"}, a_report()["gaia"]["mirror_watch"]["2"]),
       "stats.gaia.mirror_watch"},
      {with({"mirror_watch", "2", "cut_now"}, gone), "stats.gaia.mirror_watch.2.cut_now is"},
      {with({"per_clock", "sent"}, {1, -2}), "stats.gaia.per_clock.sent holds a value"},
      {with({"worker_updates", "below"}, {{1}}), "stats.gaia.worker_updates.below is not a list"},
      {with({"worker_updates", "thresholds"}, {0.01, 5}),
       "stats.gaia.worker_updates.thresholds holds a threshold"},
  };
  for (const auto& [j, expected] : cases) {
    EXPECT_NE(refusal(j).find(expected), std::string::npos) << j.dump() << " -> " << refusal(j);
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), kNodes)) << j.dump();
  }
}

}  // namespace
}  // namespace testbed
