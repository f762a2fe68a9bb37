// `status --json` written a node and a link at a time (observe/lab_status.h): the text is
// what nlohmann's dump(2) gives of the whole document, alone and set in a list of labs,
// and it carries the plan's JSON of each node and link with the readings beside it.
#include <gtest/gtest.h>

#include <sstream>

#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/observe/lab_status.h"
#include "controller/options/workload_settings.h"

namespace testbed {
namespace {

// A lab of three nodes and three links, read as `status` reads a live one: a node absent,
// one direction without shaping, delay lines and compute that answered.
LabStatus three_node_status() {
  LabStatus st;
  st.state.lab = "tri";
  st.state.phase = "up";
  st.state.urls["exporter"] = "http://127.0.0.1:1/metrics";
  st.state.plan =
      make_plan(parse_profile_text("lab: tri\n"
                                   "nodes: {a: {cpus: 1}, b: {}, c: {}}\n"
                                   "links:\n"
                                   "  - {endpoints: [a, b], bandwidth: 10mbit, delay: 5ms}\n"
                                   "  - {endpoints: [b, c], bandwidth: 20mbit, delay: 5ms}\n"
                                   "  - {endpoints: [a, c], bandwidth: 30mbit, delay: 5ms}\n",
                                   "tri.yaml"),
                false);
  for (size_t i = 0; i < st.state.plan.nodes.size(); ++i)
    st.nodes.push_back({i != 1, i == 2 ? "paused" : "running"});
  for (size_t i = 0; i < st.state.plan.links.size(); ++i) {
    auto& pair = st.links.emplace_back();
    for (size_t d = 0; d < 2; ++d) {
      pair[d].now = {1000000 * (i + 1), 5000, 0.01 * static_cast<double>(d), i == 2};
      pair[d].kernel_asked = true;
      if (!(i == 1 && d == 1))
        pair[d].kernel = DirectionKernel{8000000, 1500 * (i + 1), i + 1, d, false, std::nullopt};
    }
  }
  st.changes_applied = 4;
  st.max_lag_ms = 1.5;
  st.routes = {{"rule", "shortest"}, {"count", 6}};
  st.delay_lines = DelayLinesStatus{3, 120, 2, {}};
  st.compute = LabCompute{"v1", std::vector<NodeCgroupUsage>(3)};
  st.compute->nodes[0].cpu_s = 2.5;
  st.live = true;
  return st;
}

std::string written(const LabStatus& st, int depth) {
  std::ostringstream out;
  write_status_json(out, st, depth);
  return out.str();
}

TEST(StatusJson, WrittenAnElementAtATimeIsTheWholeDocumentsDump) {
  const LabStatus st = three_node_status();
  const std::string text = written(st, 0);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.dump(2), text);
  // In a list of labs, as `status --json` without a name prints them.
  const std::string list = "[\n  " + written(st, 1) + ",\n  " + written(st, 1) + "\n]";
  EXPECT_EQ(nlohmann::json::parse(list).dump(2), list);
  EXPECT_EQ(nlohmann::json::parse(list)[1], j);

  // The plan's own JSON of each node and link, the readings beside it.
  ASSERT_EQ(j["nodes"].size(), 3u);
  ASSERT_EQ(j["links"].size(), 3u);
  nlohmann::json node = plan_node_to_json(st.state.plan.nodes[1]);
  EXPECT_EQ(j["nodes"][1]["address"], node["address"]);
  EXPECT_EQ(j["nodes"][1]["present"], false);
  EXPECT_EQ(j["nodes"][2]["state"], "paused");
  EXPECT_EQ(j["nodes"][0]["compute_used"]["cpu_s"], 2.5);
  EXPECT_EQ(j["links"][0]["a2b"]["shaping"],
            plan_link_to_json(st.state.plan.links[0])["a2b"]["shaping"]);
  EXPECT_EQ(j["links"][2]["b2a"]["current"]["down"], true);
  EXPECT_EQ(j["links"][2]["a2b"]["kernel"]["sent_bytes"], 4500);
  EXPECT_TRUE(j["links"][1]["b2a"]["kernel"].is_null());
  EXPECT_EQ(j["delay_lines"]["answering"], 3);
  EXPECT_EQ(j["timeline"]["changes_applied"], 4);
  EXPECT_EQ(j["metrics_url"], "http://127.0.0.1:1/metrics");
}

TEST(StatusJson, ALabWithoutNodesOrLinksHasEmptyLists) {
  LabStatus st;
  st.state.lab = "empty";
  st.state.plan_problem = "plan.json: not JSON";
  const std::string text = written(st, 0);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.dump(2), text);
  EXPECT_EQ(j["nodes"], nlohmann::json::array());
  EXPECT_EQ(j["links"], nlohmann::json::array());
  EXPECT_EQ(j["plan_problem"], "plan.json: not JSON");
}

}  // namespace
}  // namespace testbed
