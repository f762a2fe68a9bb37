// DiLoCo's section of a data center's final report (agent/contracts/diloco/diloco_report.h): what
// the agent writes the controller reads back; another system's report has none; a
// malformed section is refused with its name, by the reader and by the controller's check
// of agents' replies (dropped).
#include "agent/contracts/diloco/diloco_report.h"

#include <gtest/gtest.h>

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"
#include "controller/training/agent_reply.h"

namespace testbed {
namespace {

nlohmann::json a_report() {
  nlohmann::json j;
  write_van_counters(j, VanCounters{});
  j["event"] = kStatsEvent;
  return j;
}

std::string refusal(const nlohmann::json& j) {
  try {
    diloco_section_from(j);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TEST(DilocoReport, RoundTripsAndIsAbsentElsewhere) {
  nlohmann::json j = a_report();
  EXPECT_FALSE(diloco_section_from(j));  // another system's, or a node with no worker
  write_diloco_section(j, {7, 2});
  const auto d = diloco_section_from(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->outer_steps, 7u);
  EXPECT_EQ(d->dropped, 2u);
  EXPECT_TRUE(decode_agent_reply("0", j.dump(), 2));
}

TEST(DilocoReport, AMalformedSectionIsRefusedByName) {
  nlohmann::json good = a_report();
  write_diloco_section(good, {7, 2});
  const auto with = [&](const char* field, nlohmann::json v) {
    nlohmann::json j = good;
    if (v.is_discarded())
      j["diloco"].erase(field);
    else
      j["diloco"][field] = std::move(v);
    return j;
  };
  nlohmann::json not_object = good;
  not_object["diloco"] = 3;
  const nlohmann::json gone(nlohmann::json::value_t::discarded);
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {with("outer_steps", -1), "stats.diloco.outer_steps holds a value"},
      {with("dropped", gone), "stats.diloco.dropped is missing"},
      {with("rounds", 3), "stats.diloco.rounds is not a field"},
      {not_object, "stats.diloco: not an object"},
  };
  for (const auto& [j, expected] : cases) {
    EXPECT_NE(refusal(j).find(expected), std::string::npos) << j.dump() << " -> " << refusal(j);
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), 2)) << j.dump();
  }
}

}  // namespace
}  // namespace testbed
