// The Grafana dashboards in dashboards/: the fields Grafana requires, and every metric
// they query is one the testbed exports (checked against the exporters' own families).
#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "controller/health/health_report.h"
#include "controller/observe/compute_metrics.h"
#include "controller/observe/health_metrics.h"
#include "controller/observe/link_metrics.h"
#include "controller/observe/train_metrics.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, nlohmann::json>> dashboards() {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  for (const auto& e : fs::directory_iterator(TESTBED_DASHBOARDS_DIR)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    out.emplace_back(e.path().filename().string(), nlohmann::json::parse(in));
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.first < b.first; });
  return out;
}

// Every metric name the exporter can serve: the training families after one event of each
// kind, and the link families of one direction.
std::set<std::string> exported_names() {
  prometheus::Registry registry;
  TrainMetrics train(registry, "lab");
  train.apply({{"event", "measured"},
               {"strategy", "s"},
               {"nodes", {"a", "b"}},
               {"mbit", {{0, 10}, {10, 0}}}});
  train.apply({{"event", "iteration"},
               {"strategy", "s"},
               {"seconds", 1.0},
               {"samples_per_node", 32},
               {"policy", {{"version", 1}, {"shares", {{"a", 1.0}, {"b", 0.0}}}}},
               {"nodes",
                {{"a",
                  {{"seconds", 1.0},
                   {"chunks_sent", 3},
                   {"aux_chunks_sent", 1},
                   {"chunks_forwarded", 0},
                   {"bytes_sent", {{"b", 10}}},
                   {"bytes_received", {{"b", 10}}}}}}}});
  train.apply({{"event", "worker_clock"},
               {"strategy", "s"},
               {"node", "a"},
               {"clock", 1},
               {"seconds", 1.0},
               {"compute_s", 0.5}});
  train.apply({{"event", "membership"},
               {"strategy", "s"},
               {"members", {"a"}},
               {"outside", {"b"}},
               {"change", {{"node", "b"}, {"what", "leave"}, {"t_s", 1.0}}}});
  HealthMetrics health(registry, "lab");
  HealthReport report;
  report.directions.push_back({"a", "b", 0, 0, {}, {}, 0, true, true, 2, 2, 0.95, 0.9, 0});
  nlohmann::json event = report.to_json();
  event["event"] = "health";
  event["strategy"] = "s";
  health.apply(event);
  auto families = registry.Collect();
  DirectionSample ab;
  ab.node = "a";
  ab.peer = "b";
  for (auto& f : link_families("lab", {ab})) families.push_back(f);
  for (auto& f : fault_families("lab", {{{"a", "running"}}, {}})) families.push_back(f);
  // The compute families of one node (a group that does not exist reads as zeros).
  CgroupLayout nowhere;
  nowhere.version = CgroupLayout::Version::kV2;
  nowhere.v2_root = "/nonexistent";
  for (auto& f : ComputeCollectable("lab", nowhere, {{"a", "tb-lab-a"}}).Collect())
    families.push_back(f);
  std::set<std::string> names;
  for (const auto& f : families) {
    EXPECT_FALSE(f.metric.empty()) << f.name;
    names.insert(f.name);
  }
  return names;
}

TEST(Dashboards, HaveTheFieldsGrafanaRequires) {
  const auto all = dashboards();
  ASSERT_GE(all.size(), 3u);
  std::set<std::string> uids;
  for (const auto& [file, d] : all) {
    SCOPED_TRACE(file);
    ASSERT_TRUE(d.contains("uid") && d["uid"].is_string());
    EXPECT_TRUE(uids.insert(d["uid"].get<std::string>()).second) << "duplicate uid";
    EXPECT_TRUE(d.contains("title") && d["title"].is_string());
    EXPECT_TRUE(d.contains("schemaVersion") && d["schemaVersion"].is_number_integer());
    std::set<std::string> vars;
    for (const auto& v : d["templating"]["list"]) vars.insert(v["name"].get<std::string>());
    EXPECT_TRUE(vars.count("lab") && vars.count("node"));
    ASSERT_TRUE(d["panels"].is_array() && !d["panels"].empty());
    std::set<int> ids;
    for (const auto& p : d["panels"]) {
      SCOPED_TRACE(p.value("title", "?"));
      EXPECT_TRUE(ids.insert(p["id"].get<int>()).second) << "duplicate panel id";
      EXPECT_TRUE(p.contains("type") && p["type"].is_string());
      for (const char* k : {"h", "w", "x", "y"}) EXPECT_TRUE(p["gridPos"][k].is_number()) << k;
      EXPECT_EQ(p["datasource"]["uid"], "testbed-prometheus");
      ASSERT_TRUE(p["targets"].is_array() && !p["targets"].empty());
      for (const auto& t : p["targets"]) {
        EXPECT_FALSE(t.value("expr", "").empty());
        EXPECT_TRUE(t.contains("refId"));
      }
    }
  }
}

TEST(Dashboards, QueryOnlyMetricsTheTestbedExports) {
  const auto exported = exported_names();
  const std::regex metric("testbed_[a-z_]+");
  size_t checked = 0;
  for (const auto& [file, d] : dashboards()) {
    // Every panel's queries, and the annotations' (drawn on every panel's time axis).
    nlohmann::json queries = nlohmann::json::array();
    for (const auto& p : d["panels"])
      for (const auto& t : p["targets"]) queries.push_back(t);
    for (const auto& a : d["annotations"]["list"])
      if (a.contains("expr")) queries.push_back(a);
    {
      for (const auto& t : queries) {
        const std::string expr = t["expr"];
        for (std::sregex_iterator it(expr.begin(), expr.end(), metric), end; it != end; ++it) {
          std::string name = it->str();
          // A histogram's series carry suffixes of the family's name.
          for (const char* suffix : {"_bucket", "_sum", "_count"}) {
            const std::string s = suffix;
            if (name.size() > s.size() && name.ends_with(s) &&
                exported.count(name.substr(0, name.size() - s.size())))
              name = name.substr(0, name.size() - s.size());
          }
          EXPECT_TRUE(exported.count(name)) << file << ": " << name << " is not exported";
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 20u);
}

}  // namespace
}  // namespace testbed
