// Metrics end to end: a real short run on a small lab, scraped by the lab's real
// Prometheus. Every expression of every dashboard panel, its variables filled in, must
// return data, and the exposition must pass promtool's lint.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "controller/lab/teardown.h"
#include "controller/observe/prometheus_server.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

std::string url_encode(const std::string& s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

int port_of(const std::string& url) {
  const std::smatch m = [&] {
    std::smatch r;
    std::regex_search(url, r, std::regex(":(\\d+)"));
    return r;
  }();
  return m.empty() ? 0 : std::stoi(m[1]);
}

// The number of series an instant query returns, or -1 when it fails.
int series(int port, const std::string& expr) {
  const auto body = http_get(port, "/api/v1/query?query=" + url_encode(expr));
  if (!body) return -1;
  const auto j = nlohmann::json::parse(*body, nullptr, false);
  if (j.is_discarded() || j.value("status", "") != "success") return -1;
  return static_cast<int>(j["data"]["result"].size());
}

TEST(Metrics, EveryDashboardPanelShowsDataFromARealRun) {
  REQUIRE_ROOT();
  if (!find_prometheus()) GTEST_SKIP() << "prometheus is not installed";
  LabGuard guard("tbt-triangle");
  // The triangle as shipped, no node with a compute limit: every node's CPU and memory are
  // measured all the same, so the compute panels have data in every lab.
  const Result up = run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/triangle.yaml"});
  ASSERT_EQ(up.status, 0) << up.output;
  const Result st = run_testbed({"status", "tbt-triangle", "--json"});
  ASSERT_EQ(st.status, 0);
  const auto status = nlohmann::json::parse(st.output);
  ASSERT_TRUE(status.contains("prometheus_url")) << st.output;
  const int prometheus = port_of(status["prometheus_url"]);
  const int exporter = port_of(status["metrics_url"]);

  // Small chunks, so netstorm-pro's primary paths get busy and auxiliary ones are used.
  const Result r =
      run_testbed({"train", "tbt-triangle", "--strategy", "netstorm-pro", "--iterations", "6",
                   "--scale", "0.002", "--chunk", "2048", "--update-time", "0", "--json"});
  ASSERT_EQ(r.status, 0) << r.output;
  // Every chunk sent reaches its destination within its iteration, on a primary or an
  // auxiliary route, and is timed there from its origin's send.
  const auto summary = summary_of(r.output);
  double primary = 0, aux = 0;
  for (const auto& h : summary["edge_history"]) {
    primary += h["delivered"]["primary"]["chunks"].get<double>();
    aux += h["delivered"]["aux"]["chunks"].get<double>();
    if (h["delivered"]["primary"]["chunks"].get<double>() > 0) {
      EXPECT_GT(h["delivered"]["primary"]["mean_s"].get<double>(), 0.0);
    }
  }
  EXPECT_EQ(primary + aux, summary["chunks_sent"].get<double>());
  EXPECT_EQ(aux, summary["aux_chunks_sent"].get<double>());

  // An elastic DiLoCo run with c outside (left before it began): the compute utilization
  // and membership panels (dashboards/elastic.json) have data.
  ASSERT_EQ(run_testbed({"node", "leave", "tbt-triangle", "c"}).status, 0);
  const Result elastic = run_testbed({"train", "tbt-triangle", "--strategy", "diloco",
                                      "--diloco-elastic", "on", "--model", "logreg", "--iterations",
                                      "40", "--compute-ms", "20", "--diloco-h", "5"});
  ASSERT_EQ(elastic.status, 0) << elastic.output;

  // The exposition passes promtool's lint (names, units, _total on counters, help).
  const auto text = http_get(exporter, "/metrics");
  ASSERT_TRUE(text.has_value());
  const std::string file = "/tmp/tbt-metrics-" + std::to_string(getpid()) + ".txt";
  std::ofstream(file) << *text;
  const int lint =
      std::system(("promtool check metrics < " + file + " > " + file + ".out 2>&1").c_str());
  std::ifstream lint_out(file + ".out");
  const std::string lint_text((std::istreambuf_iterator<char>(lint_out)), {});
  std::filesystem::remove(file);
  std::filesystem::remove(file + ".out");
  EXPECT_EQ(lint, 0) << lint_text;

  // Wait until Prometheus has scraped the end of the run: the last iteration counted.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (series(prometheus, "testbed_iterations_total{lab=\"tbt-triangle\"} >= 6") < 1 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  // Three more one-second scrapes: every series then has the two samples rate() needs.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  size_t checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(TESTBED_DASHBOARDS_DIR)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const auto dashboard = nlohmann::json::parse(in);
    for (const auto& panel : dashboard["panels"]) {
      for (const auto& target : panel["targets"]) {
        std::string expr = target["expr"];
        expr = std::regex_replace(expr, std::regex("\\$lab"), "tbt-triangle");
        expr = std::regex_replace(expr, std::regex("\\$node"), "a");
        EXPECT_GT(series(prometheus, expr), 0)
            << e.path().filename() << " / " << panel["title"] << ": " << expr;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 20u);

  // Without Grafana: PNGs of the run and the links.
  const std::string out = "/tmp/tbt-report-" + std::to_string(getpid());
  const Result report = run_testbed({"report", "tbt-triangle", "--out", out});
  EXPECT_EQ(report.status, 0) << report.output;
  for (const char* png :
       {"iteration_time.png", "strategies.png", "links.png", "utilization.png", "membership.png"}) {
    std::ifstream f(out + "/" + png, std::ios::binary);
    char magic[4] = {};
    f.read(magic, 4);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG") << png;
  }
  std::filesystem::remove_all(out);
}

TEST(Metrics, PrometheusOffStartsNoServerAndExistingPrintsTheScrapeJob) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-pair");
  const Result off =
      run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/pair.yaml", "--prometheus", "off"});
  ASSERT_EQ(off.status, 0) << off.output;
  auto status = nlohmann::json::parse(run_testbed({"status", "tbt-pair", "--json"}).output);
  EXPECT_FALSE(status.contains("prometheus_url"));
  ASSERT_TRUE(status.contains("metrics_url"));  // the exporter always runs
  EXPECT_TRUE(http_get(port_of(status["metrics_url"]), "/metrics").has_value());
  ASSERT_EQ(run_testbed({"down", "tbt-pair"}).status, 0);
  const Result existing =
      run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/pair.yaml", "--prometheus=existing"});
  ASSERT_EQ(existing.status, 0) << existing.output;
  EXPECT_NE(existing.output.find("job_name: testbed-tbt-pair"), std::string::npos)
      << existing.output;
  const Result bad =
      run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/pair.yaml", "--prometheus", "maybe"});
  EXPECT_EQ(bad.status, 2);
}

}  // namespace
}  // namespace testbed::it
