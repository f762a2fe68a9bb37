// testbed run and testbed regress on a real two-node lab: results files, verdicts, exit
// statuses, JUnit, baselines, and an interrupted run that still cleans up.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "host_snapshot.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

namespace fs = std::filesystem;

// A scratch directory removed at the end of the test.
struct TempDir {
  std::string path = "/tmp/tbt-scenario-" + std::to_string(getpid());
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::string scenario(const std::string& name, int iterations, const std::string& expect) {
  return "name: " + name + "\ntopology: " + TESTBED_PROFILES_DIR +
         "/tiny/pair.yaml\nworkload: {model: resnet50, scale: 0.002, iterations: " +
         std::to_string(iterations) + "}\nstrategies: [ps, mst]\nexpect:\n" + expect;
}

TEST(ScenarioRun, WritesResultsAndNamesTheExpectationThatFailed) {
  REQUIRE_ROOT();
  TempDir tmp;
  const HostSnapshot before = take_host_snapshot();
  LabGuard guard("sc-tbt-verdict");
  std::ofstream(tmp.path + "/s.yaml") << scenario(
      "tbt-verdict", 2, "  - no node failed\n  - mst / ps >= 0.5\n  - mst / ps >= 100\n");
  const Result r = run_testbed({"run", tmp.path + "/s.yaml", "--out", tmp.path + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("expectation failed: 'mst / ps >= 100'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PASS mst / ps >= 0.5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[tbt-verdict] mst (2/2): iteration 2/2"), std::string::npos);

  std::ifstream in(tmp.path + "/out/results.json");
  const auto results = nlohmann::json::parse(in);
  EXPECT_TRUE(results["finished"].get<bool>());
  EXPECT_FALSE(results["passed"].get<bool>());
  EXPECT_EQ(results["verdicts"].size(), 3u);
  EXPECT_TRUE(results["strategies"]["ps"]["figures"]["samples_per_s"].get<double>() > 0);
  EXPECT_NE(results["inputs"]["topology"].get<std::string>().find("lab: sc-tbt-verdict"),
            std::string::npos);
  EXPECT_FALSE(results["versions"]["testbed"].get<std::string>().empty());
  std::ifstream csv(tmp.path + "/out/iterations.csv");
  size_t rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, 1u + 2 * 2);  // header, two strategies of two iterations
  for (const char* f : {"links.csv", "iteration_time.png", "links.png", "runs/ps-rep1.json"})
    EXPECT_TRUE(fs::exists(tmp.path + "/out/" + f)) << f;
  EXPECT_FALSE(lab_state_exists("sc-tbt-verdict"));
  EXPECT_EQ(take_host_snapshot(), before);
  // Bad input: exit 2, nothing run.
  std::ofstream(tmp.path + "/bad.yaml") << scenario("tbt-verdict", 2, "  - ps is best\n");
  EXPECT_EQ(run_testbed({"run", tmp.path + "/bad.yaml"}).status, 2);
}

TEST(ScenarioRun, CaptureRecordsEachRunsPacketsBesideItsCrossTraffic) {
  REQUIRE_ROOT();
  TempDir tmp;
  LabGuard guard("sc-tbt-capture");
  // Two iterations of ps beside a 2 Mbit/s UDP stream, every link captured.
  std::ofstream(tmp.path + "/s.yaml")
      << "name: tbt-capture\ntopology: " << TESTBED_PROFILES_DIR
      << "/tiny/pair.yaml\nworkload: {model: resnet50, scale: 0.002, iterations: 2}\n"
         "strategies: [ps]\ncross_traffic: [{from: left, to: right, kind: udp, rate: 2mbit}]\n"
         "capture: all\nexpect:\n  - no node failed\n";
  const Result r = run_testbed({"run", tmp.path + "/s.yaml", "--out", tmp.path + "/out"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream in(tmp.path + "/out/results.json");
  const auto results = nlohmann::json::parse(in);
  ASSERT_EQ(results["runs"].size(), 1u);
  const auto& capture = results["runs"][0]["capture"];
  ASSERT_TRUE(capture.contains("summary")) << capture.dump();
  const std::string file = tmp.path + "/out/runs/ps-rep1.pcapng";
  EXPECT_EQ(capture["file"], file);
  // Both directions, the packets the kernel sent while it ran, read back by tshark. The
  // stream never pauses, so a packet in flight as the capture starts or stops may be on one
  // side only (packet_capture_run.cpp): a few, of thousands.
  ASSERT_EQ(capture["summary"]["directions"].size(), 2u);
  for (const auto& d : capture["summary"]["directions"]) {
    const double packets = d["packets"], kernel = d["kernel_sent_packets"];
    EXPECT_GT(packets, 0) << d.dump();
    EXPECT_NEAR(packets, kernel, std::max(5.0, kernel / 100)) << d.dump();
  }
  FILE* p = popen(("tshark -r " + file + " 2>/dev/null | wc -l").c_str(), "r");
  long read_back = -1;
  if (p) {
    if (fscanf(p, "%ld", &read_back) != 1) read_back = -1;
    pclose(p);
  }
  EXPECT_EQ(read_back, capture["summary"]["packets"].get<long>());
  // The UDP stream is in it, and counted apart in the run's summary.
  std::ifstream run_file(tmp.path + "/out/runs/ps-rep1.json");
  const auto summary = nlohmann::json::parse(run_file);
  EXPECT_GT(summary["cross_traffic"]["directions"]["left>right"]["background_bytes"].get<double>(),
            0);
  EXPECT_FALSE(lab_state_exists("sc-tbt-capture"));
}

TEST(ScenarioRun, SigtermTakesTheLabDownAndKeepsPartialResults) {
  REQUIRE_ROOT();
  TempDir tmp;
  const HostSnapshot before = take_host_snapshot();
  LabGuard guard("sc-tbt-interrupt");
  std::ofstream(tmp.path + "/s.yaml") << scenario("tbt-interrupt", 100000, "  - no node failed\n");
  const pid_t run = spawn_testbed({"run", tmp.path + "/s.yaml", "--out", tmp.path + "/out"});
  guard.own(run);
  // Until the first run's lab is up and training: its results file then exists.
  for (int i = 0; i < 600 && !fs::exists(tmp.path + "/out/topology.yaml"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (int i = 0; i < 600 && !lab_state_exists("sc-tbt-interrupt"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // a few iterations in
  kill(run, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(run, &status, 0), run);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM) << status;
  EXPECT_FALSE(lab_state_exists("sc-tbt-interrupt"));
  std::ifstream in(tmp.path + "/out/results.json");
  const auto results = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(results.is_discarded());
  EXPECT_TRUE(results["interrupted"].get<bool>());
  EXPECT_FALSE(results["finished"].get<bool>());
  EXPECT_EQ(take_host_snapshot(), before);
}

TEST(ScenarioRun, RegressTabulatesWritesJunitAndFlagsRegressions) {
  REQUIRE_ROOT();
  TempDir tmp;
  LabGuard guard("sc-tbt-regress");
  fs::create_directories(tmp.path + "/suite");
  std::ofstream(tmp.path + "/suite/a.yaml")
      << scenario("tbt-regress", 1, "  - no node failed\n  - mst / ps >= 0.5\n");
  // A baseline no real run reaches: ps must be flagged as a regression.
  std::ofstream(tmp.path + "/baseline.json") << R"({"scenarios": {"tbt-regress": {"ps": 1e9}}})";
  const Result r = run_testbed({"regress", tmp.path + "/suite", "--junit", tmp.path + "/j.xml",
                                "--baseline", tmp.path + "/baseline.json", "--save-baseline",
                                tmp.path + "/new.json", "--out", tmp.path + "/out"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("baseline: ps samples/s regressed"), std::string::npos) << r.output;
  std::ifstream junit(tmp.path + "/j.xml");
  const std::string xml((std::istreambuf_iterator<char>(junit)), {});
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\""), std::string::npos) << xml;
  std::ifstream saved(tmp.path + "/new.json");
  const auto baseline = nlohmann::json::parse(saved);
  EXPECT_GT(baseline["scenarios"]["tbt-regress"]["mst"].get<double>(), 0);
  EXPECT_FALSE(lab_state_exists("sc-tbt-regress"));
}

TEST(ScenarioRun, ALaunchedJobIsJudgedBesideABuiltInStrategy) {
  REQUIRE_ROOT();
  TempDir tmp;
  LabGuard guard("sc-tbt-launched");
  // The job writes a falling loss; {scenario_dir} is where the scenario file lies.
  std::ofstream(tmp.path + "/job.sh")
      << "for i in 0 1 2; do\n"
         "  echo \"{\\\"iteration\\\": $i, \\\"loss\\\": $((3 - i))}\" >> \"$TESTBED_METRICS\"\n"
         "done\n";
  std::ofstream(tmp.path + "/s.yaml")
      << "name: tbt-launched\ntopology: " << TESTBED_PROFILES_DIR
      << "/tiny/pair.yaml\nworkload: {model: resnet50, scale: 0.002, iterations: 2}\n"
         "strategies:\n  - ps\n"
         "  - {name: shjob, command: [sh, \"{scenario_dir}/job.sh\"], target-loss: 1.5}\n"
         "expect:\n  - no node failed\n  - final_loss(shjob) <= 1\n"
         "  - time_to_loss(shjob) <= 30\n";
  const Result r = run_testbed({"run", tmp.path + "/s.yaml", "--out", tmp.path + "/out"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("PASS final_loss(shjob) <= 1"), std::string::npos) << r.output;
  std::ifstream in(tmp.path + "/out/results.json");
  const auto results = nlohmann::json::parse(in);
  EXPECT_TRUE(results["passed"].get<bool>());
  const auto& figures = results["strategies"]["shjob"]["figures"];
  EXPECT_DOUBLE_EQ(figures["final_loss"].get<double>(), 1.0) << figures.dump();
  EXPECT_TRUE(fs::exists(tmp.path + "/out/runs/shjob-rep1.json"));
}

}  // namespace
}  // namespace testbed::it
