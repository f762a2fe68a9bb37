// A parameter-server node's final report (agent/contracts/ps_node_report.h): what the agent
// writes the controller reads back field for field, a diverged shard's NaN values travel as
// null, the policies' own sections are left alone, and a malformed field is refused with
// its name, by the reader and by the controller's check of agents' replies (dropped).
#include "agent/contracts/ps_node_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "agent/contracts/drps/drps_report.h"
#include "agent/contracts/gaia/gaia_report.h"
#include "agent/contracts/message_fields.h"
#include "agent/contracts/model_report.h"
#include "agent/contracts/node_replies.h"
#include "controller/training/agent_reply.h"

namespace testbed {
namespace {

nlohmann::json report_of(const PsNodeReport& r) {
  nlohmann::json j;
  write_van_counters(j, VanCounters{});
  j["event"] = kStatsEvent;
  write_ps_node_report(j, r);
  return j;
}

PsNodeReport a_server() {
  PsNodeReport r;
  r.relayed_bytes = 12;
  r.pulled = PsNodeReport::Pulled{3, 4};
  r.sent_dense = PsNodeReport::Dense{5, 6};
  ShardReport& s = r.shard.emplace();
  s.shard = 1;
  s.begin = 10;
  s.end = 13;
  s.updates = 7;
  s.staleness = {{0, 5}, {2, 2}};
  s.applied_ns = {{100, 200}, {150}};
  s.values = std::vector<float>{0.5f, -1.0f, 2.0f};
  return r;
}

std::string refusal(const nlohmann::json& j) {
  try {
    ps_node_report_from(j);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TEST(PsNodeReport, RoundTripsAndLeavesThePoliciesSectionsAlone) {
  nlohmann::json j = report_of(a_server());
  write_store_section(j["server"], {.blocks = 4});  // DRPS's policies add their own
  write_wsp_master_section(j, {.choices = 1});
  const PsNodeReport r = ps_node_report_from(j);
  EXPECT_EQ(r.relayed_bytes, 12u);
  ASSERT_TRUE(r.pulled && r.sent_dense && r.shard);
  EXPECT_EQ(r.pulled->remote, 4u);
  EXPECT_EQ(r.sent_dense->pulls, 6u);
  EXPECT_EQ(r.shard->role, "server");
  EXPECT_EQ(r.shard->end, 13u);
  EXPECT_EQ(r.shard->staleness, (std::map<uint64_t, uint64_t>{{0, 5}, {2, 2}}));
  EXPECT_EQ(r.shard->applied_ns, (std::vector<std::vector<int64_t>>{{100, 200}, {150}}));
  EXPECT_EQ(*r.shard->values, (std::vector<float>{0.5f, -1.0f, 2.0f}));
  EXPECT_TRUE(decode_agent_reply("0", j.dump(), 2));
  // A worker's report has no shard; a replica's is filed under its role.
  PsNodeReport replica = a_server();
  replica.shard->role = "replica";
  EXPECT_EQ(ps_node_report_from(report_of(replica)).shard->role, "replica");
  PsNodeReport worker = a_server();
  worker.shard.reset();
  EXPECT_FALSE(ps_node_report_from(report_of(worker)).shard);
}

TEST(PsNodeReport, ADivergedShardsValuesComeBackAsNaN) {
  PsNodeReport r = a_server();
  r.shard->values->at(1) = std::numeric_limits<float>::quiet_NaN();
  const auto back = ps_node_report_from(nlohmann::json::parse(report_of(r).dump()));
  EXPECT_TRUE(std::isnan(back.shard->values->at(1)));
  EXPECT_FLOAT_EQ(back.shard->values->at(2), 2.0f);
}

TEST(PsNodeReport, AMalformedReportIsRefusedByName) {
  const nlohmann::json good = report_of(a_server());
  const auto with = [&](const char* part, const char* field, nlohmann::json v) {
    nlohmann::json j = good;
    (part ? j[part] : j)[field] = std::move(v);
    return j;
  };
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {with(nullptr, "relayed_bytes", -1), "stats.relayed_bytes holds a value"},
      {with("pulled", "remote", "many"), "stats.pulled.remote holds a value"},
      {with("server", "end", 9), "stats.server.end is before begin"},
      {with("server", "values", {1.0, 2.0}), "stats.server.values holds 2 values for 3 keys"},
      {with("server", "values", {1.0, 1e300, 2.0}), "stats.server.values holds a value"},
      {with("server", "staleness", {{"01", 1}}), "stats.server.staleness has the key \"01\""},
      {with("server", "applied_ns", {{1.5}}), "stats.server.applied_ns holds a time"},
      {with(nullptr, "replica", good["server"]), "stats.replica is a second shard"},
  };
  for (const auto& [j, expected] : cases) {
    EXPECT_NE(refusal(j).find(expected), std::string::npos) << j.dump() << " -> " << refusal(j);
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), 2)) << j.dump();
  }
  // Another system's report (no relayed_bytes) is not this contract's.
  nlohmann::json gaia;
  write_van_counters(gaia, VanCounters{});
  gaia["event"] = kStatsEvent;
  write_gaia_section(gaia, {.relayed_bytes = 7});  // its own relayed bytes, in its section
  EXPECT_FALSE(is_ps_node_report(gaia));
  EXPECT_TRUE(decode_agent_reply("0", gaia.dump(), 2));
}

TEST(RingModelReport, RoundTripsAndRefusesWhatIsNoFloat) {
  nlohmann::json j;
  write_van_counters(j, VanCounters{});
  j["event"] = kStatsEvent;
  EXPECT_FALSE(ring_model_from(j));  // a rank other than the first sends none
  write_ring_model(j, {1.5f, std::numeric_limits<float>::quiet_NaN()});
  const auto back = ring_model_from(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back);
  EXPECT_FLOAT_EQ(back->at(0), 1.5f);
  EXPECT_TRUE(std::isnan(back->at(1)));  // a diverged model's NaN, as null and back
  EXPECT_TRUE(decode_agent_reply("0", j.dump(), 2));
  for (const nlohmann::json& bad :
       {nlohmann::json{{"values", {1e300}}}, nlohmann::json{{"values", "1,2"}},
        nlohmann::json{{"v", {1}}}}) {
    j["allreduce"] = bad;
    EXPECT_THROW(ring_model_from(j), ContractError) << bad.dump();
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), 2)) << bad.dump();
  }
}

}  // namespace
}  // namespace testbed
