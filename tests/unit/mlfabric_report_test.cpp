// MLfabric's sections of a parameter-server node's final report
// (agent/contracts/mlfabric/mlfabric_report.h): what the agent's policy writes the controller reads
// back field for field, in the places the sections have always had; another system's report
// has none; a malformed section is refused with its name, by the reader and by the
// controller's check of agents' replies (dropped).
#include "agent/contracts/mlfabric/mlfabric_report.h"

#include <gtest/gtest.h>

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"
#include "agent/contracts/ps_node_report.h"
#include "controller/training/agent_reply.h"
#include "tests/support/report_fixtures.h"

namespace testbed {
namespace {

MlfabricShardSections a_server_shard() {
  MlfabricShardSections s;
  s.ordered = MlfabricShardSections::Ordered{9, 1, 0, 7, 700};
  s.models_sent = MlfabricShardSections::ModelsSent{4, 2};
  s.apply_log = std::vector<std::pair<uint64_t, int64_t>>{{1, 100}, {3, 250}};
  s.checkpoint = MlfabricShardSections::Checkpoint{5, 2, 64, 0.25, 0.2, 5};
  s.clock_applied_ns = {1000, 2000};
  return s;
}

MlfabricWorkerSections a_worker() {
  return {{6, 1, 6}, {2, 5, 0}, {3, 1}};
}

MlfabricFailoverSection a_promotion() {
  MlfabricFailoverSection f;
  f.dead_server = 0;
  f.first_seq = 12;
  f.stale_messages_dropped = 3;
  f.updates_announced_again = 2;
  f.pulls_asked_again = 1;
  f.promoted = MlfabricFailoverSection::Promoted{4, 1, CheckpointLoaded{true, 8, 0.01}};
  return f;
}

std::string refusal(const nlohmann::json& j) {
  try {
    mlfabric_report_from(j);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TEST(MlfabricReport, RoundTripsInTheSectionsPlaces) {
  nlohmann::json j = tb::test::ps_core_report("server");
  write_mlfabric_node_sections(j, a_worker(), a_promotion());
  write_mlfabric_shard_sections(j["server"], a_server_shard());
  // Where the run's readers and the docs have always found them.
  for (const char* key : {"scheduled", "aggregator", "distributor", "failover"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["server"]["ordered"]["applied"], 9);
  const MlfabricReport r = mlfabric_report_from(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(r.worker && r.failover && r.shard);
  EXPECT_EQ(r.role, "server");
  EXPECT_EQ(r.worker->scheduled.replicated, 6u);
  EXPECT_EQ(r.worker->aggregator.updates, 5u);
  EXPECT_EQ(r.worker->distributor.forwarded, 3u);
  EXPECT_EQ(r.failover->first_seq, 12u);
  ASSERT_TRUE(r.failover->promoted && r.failover->promoted->checkpoint);
  EXPECT_EQ(r.failover->promoted->checkpoint->applied, 8u);
  EXPECT_EQ(r.shard->ordered->bytes, 700u);
  EXPECT_EQ(r.shard->models_sent->to_distributors, 2u);
  EXPECT_EQ(*r.shard->apply_log, (std::vector<std::pair<uint64_t, int64_t>>{{1, 100}, {3, 250}}));
  EXPECT_DOUBLE_EQ(r.shard->checkpoint->seconds, 0.25);
  EXPECT_EQ(r.shard->clock_applied_ns, (std::vector<int64_t>{1000, 2000}));
  EXPECT_TRUE(decode_agent_reply("0", j.dump(), 2));
  // The replica's sections are filed under its role.
  nlohmann::json replica = tb::test::ps_core_report("replica");
  write_mlfabric_shard_sections(replica["replica"], a_server_shard());
  EXPECT_EQ(mlfabric_report_from(replica).role, "replica");
}

TEST(MlfabricReport, AnotherSystemsReportHasNoSections) {
  const nlohmann::json j = tb::test::ps_core_report("server");  // a plain parameter server's shard
  const MlfabricReport r = mlfabric_report_from(j);
  EXPECT_FALSE(r.worker || r.failover || r.shard);
  EXPECT_EQ(r.role, "");
}

TEST(MlfabricReport, AMalformedSectionIsRefusedByName) {
  nlohmann::json good = tb::test::ps_core_report("server");
  write_mlfabric_node_sections(good, a_worker(), a_promotion());
  write_mlfabric_shard_sections(good["server"], a_server_shard());
  const auto with = [&](const std::vector<std::string>& path, nlohmann::json v) {
    return tb::test::with_field(good, path, std::move(v));
  };
  const nlohmann::json& gone = tb::test::kRemoved;
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {with({"scheduled", "pushed"}, -1), "stats.scheduled.pushed holds a value"},
      {with({"aggregator"}, gone), "stats.aggregator is missing"},
      {with({"distributor", "kept"}, "all"), "stats.distributor.kept holds a value"},
      {with({"failover", "first_seq"}, gone), "stats.failover.first_seq is missing"},
      {with({"failover", "promoted", "checkpoint", "load_s"}, -0.5),
       "stats.failover.promoted.checkpoint.load_s is no finite number"},
      {with({"server", "ordered", "applied"}, 1.5), "stats.server.ordered.applied holds a value"},
      {with({"server", "apply_log"}, {{1, 2, 3}}), "stats.server.apply_log holds a record"},
      {with({"server", "apply_log"}, {{-1, 2}}), "stats.server.apply_log holds a value"},
      {with({"server", "checkpoint", "max_s"}, "slow"), "stats.server.checkpoint.max_s has the"},
      {with({"server", "clock_applied_ns"}, {"soon"}), "stats.server.clock_applied_ns holds a"},
      {with({"server", "models_sent"}, 3), "stats.server.models_sent: not an object"},
  };
  for (const auto& [j, expected] : cases) {
    EXPECT_NE(refusal(j).find(expected), std::string::npos) << j.dump() << " -> " << refusal(j);
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), 2)) << j.dump();
  }
}

}  // namespace
}  // namespace testbed
