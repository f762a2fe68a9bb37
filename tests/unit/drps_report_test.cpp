// DRPS's sections of a parameter-server node's final report (agent/contracts/drps/drps_report.h):
// what the store and WSP's master write the controller reads back field for field, in the
// places the sections have always had; another system's report has none; a malformed
// section is refused with its name, by the reader and by the controller's check of agents'
// replies (dropped); the run's stores sum counter by counter.
#include "agent/contracts/drps/drps_report.h"

#include <gtest/gtest.h>

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"
#include "agent/contracts/ps_node_report.h"
#include "controller/training/agent_reply.h"
#include "tests/support/report_fixtures.h"

namespace testbed {
namespace {

constexpr size_t kNodes = 4;

WspMasterSection a_master() {
  return {10, 4, 1, 3, 0.8, 2.0, {{1, 2, 0.1, 0.2, false}, {3, 4, 0.3, 0.8, true}}};
}

std::string refusal(const nlohmann::json& j) {
  try {
    drps_report_from(j, kNodes);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json a_good_report() {
  nlohmann::json j = tb::test::ps_core_report("server");
  write_store_section(j["server"], {3, 40, 12, 5, 4096, 8192});
  write_wsp_master_section(j, a_master());
  return j;
}

TEST(DrpsReport, RoundTripsInTheSectionsPlaces) {
  const nlohmann::json j = a_good_report();
  EXPECT_EQ(j["server"]["store"]["disk_reads"], 5);  // where the docs have always found it
  EXPECT_EQ(j["wsp_master"]["waits"][1]["forced"], true);
  const DrpsReport r = drps_report_from(nlohmann::json::parse(j.dump()), kNodes);
  EXPECT_EQ(r.role, "server");
  ASSERT_TRUE(r.store && r.wsp_master);
  EXPECT_EQ(r.store->blocks, 3u);
  EXPECT_EQ(r.store->disk_write_bytes, 8192u);
  EXPECT_EQ(r.wsp_master->held, 3u);
  EXPECT_DOUBLE_EQ(r.wsp_master->realized_wait_s, 2.0);
  ASSERT_EQ(r.wsp_master->waits.size(), 2u);
  EXPECT_EQ(r.wsp_master->waits[1].worker, 3u);
  EXPECT_TRUE(r.wsp_master->waits[1].forced);
  EXPECT_TRUE(decode_agent_reply("0", j.dump(), kNodes));
}

TEST(DrpsReport, AnotherSystemsReportHasNoSections) {
  const DrpsReport r = drps_report_from(tb::test::ps_core_report("server"), kNodes);
  EXPECT_FALSE(r.store || r.wsp_master);
  EXPECT_EQ(r.role, "");
}

TEST(DrpsReport, StoresSumCounterByCounter) {
  StoreSection sum;
  sum += {3, 40, 12, 5, 4096, 8192};
  sum += {2, 10, 1, 0, 0, 100};
  EXPECT_EQ(nlohmann::json(sum), nlohmann::json::parse(R"({"blocks": 5, "block_reads": 50,
      "block_writes": 13, "disk_reads": 5, "disk_read_bytes": 4096, "disk_write_bytes": 8292})"));
}

TEST(DrpsReport, AMalformedSectionIsRefusedByName) {
  const nlohmann::json good = a_good_report();
  const auto with = [&](const std::vector<std::string>& path, nlohmann::json v) {
    return tb::test::with_field(good, path, std::move(v));
  };
  const nlohmann::json& gone = tb::test::kRemoved;
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {with({"server", "store", "blocks"}, -1), "stats.server.store.blocks holds a value"},
      {with({"server", "store", "disk_reads"}, gone), "stats.server.store.disk_reads is missing"},
      {with({"server", "store"}, "rocks"), "stats.server.store: not an object"},
      {with({"wsp_master", "waited"}, 1.5), "stats.wsp_master.waited holds a value"},
      {with({"wsp_master", "realized_wait_s"}, -2), "stats.wsp_master.realized_wait_s is no"},
      {with({"wsp_master", "waits"}, 7), "stats.wsp_master.waits is not a list"},
      {with({"wsp_master", "waits", "1", "worker"}, 9),
       "stats.wsp_master.waits[1].worker is 9, outside"},
      {with({"wsp_master", "waits", "0", "forced"}, "yes"),
       "stats.wsp_master.waits[0].forced has the wrong type"},
      {with({"wsp_master", "waits", "0"}, 5), "stats.wsp_master.waits[0]: not an object"},
  };
  for (const auto& [j, expected] : cases) {
    EXPECT_NE(refusal(j).find(expected), std::string::npos) << j.dump() << " -> " << refusal(j);
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), kNodes)) << j.dump();
  }
}

}  // namespace
}  // namespace testbed
