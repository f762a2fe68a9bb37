// Faults during a run, on the real lab (tbt-line4: n1 - n2 - n3 - n4, the middle hop the
// bottleneck). A node paused for 5 s (`testbed node pause`): only its agent stops, the run
// completes, and the pause is in its iteration times. A node crashed: only its agent dies,
// and the run ends naming it. The middle link cut to 1 kbit/s mid-run: the run reports the stall
// (which pairs of nodes, how many bytes waiting, the link's fault) and, with --max-seconds,
// ends at its budget. The controller killed outright: its agents end with it, the next
// train runs without a `clean`, and the lab is as `up` made it; `down` removes the rest. Bounds are
// generous: each is many times what an idle machine needs, so a loaded one cannot fail them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "host_snapshot.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

// Whether `pid` is a process that has not exited (a zombie has).
bool alive(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' &&
         stat[close + 2] != 'X';
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The pids the lab's state records: after `up`, its own (exporter, Prometheus, ...).
std::vector<int> recorded_processes() {
  std::vector<int> out;
  for (const auto& p : lab_state_json(kLab).value("processes", nlohmann::json::array()))
    out.push_back(p.at("pid").get<int>());
  return out;
}

class Faults : public Line4Lab {};

TEST_F(Faults, APeerPausedFor5SecondsDelaysTheRunWhichCompletes) {
  REQUIRE_ROOT();
  // A tree strategy: every iteration needs every node, so the pause is in one of them.
  BackgroundTrain trainer(guard_, kLab,
                          {"--strategy", "mst", "--iterations", "40", "--scale", "0.005", "--chunk",
                           "16384", "--oracle", "--compute-ms", "20", "--json"},
                          "/tmp/tbt-faults-pause.log");
  ASSERT_TRUE(trainer.wait_for(R"("iteration":5,)", 120)) << trainer.output();
  int paused = 0, running = 0;
  for (const auto& [pid, node] : agents_of(kLab)) {
    if (node == "n2") paused = pid;
    if (node == "n1") running = pid;
  }
  ASSERT_GT(paused, 0);
  // `testbed node pause` stops the node's processes until `testbed node resume`: held here
  // for 5 s by the test itself, so that what it checks meanwhile cannot outlast the pause on
  // a slow machine (`--for` is tested in Dynamics.ANodePausedForAWhile...).
  const auto paused_at = std::chrono::steady_clock::now();
  const Result pause = run_testbed({"node", "pause", kLab, "n2"});
  ASSERT_EQ(pause.status, 0) << pause.output;
  EXPECT_EQ(process_state(paused), 'T');
  EXPECT_NE(process_state(running), 'T');
  const auto status_json = nlohmann::json::parse(run_testbed({"status", kLab, "--json"}).output);
  for (const auto& n : status_json["nodes"])
    EXPECT_EQ(n["state"], n["name"] == "n2" ? "paused" : "running") << n;
  std::this_thread::sleep_until(paused_at + std::chrono::seconds(5));
  const Result resume = run_testbed({"node", "resume", kLab, "n2"});
  ASSERT_EQ(resume.status, 0) << resume.output;
  EXPECT_NE(process_state(paused), 'T');
  const int status = trainer.wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << trainer.output();
  const auto summary = summary_of(trainer.output());
  ASSERT_EQ(summary["iterations"], 40) << trainer.output();
  // The pause falls in one iteration, or across two back to back.
  const auto times = summary["iteration_s"].get<std::vector<double>>();
  double longest_pair = 0;
  for (size_t i = 0; i + 1 < times.size(); ++i)
    longest_pair = std::max(longest_pair, times[i] + times[i + 1]);
  EXPECT_GE(longest_pair, 4.5) << summary["iteration_s"];
  // Five seconds is a pause, not a stall (StallWatch::kStuckAfter is 10 s).
  EXPECT_TRUE(summary["stalls"].empty()) << summary["stalls"];
}

TEST_F(Faults, ACrashedNodesProcessesAloneDieAndTheRunEndsNamingIt) {
  REQUIRE_ROOT();
  const auto up_processes = recorded_processes();
  BackgroundTrain trainer(
      guard_, kLab,
      {"--strategy", "bsp", "--model", "mf", "--iterations", "100000", "--compute-ms", "20"},
      "/tmp/tbt-faults-crash.log");
  ASSERT_TRUE(trainer.wait_for("iteration 2/", 120)) << trainer.output();
  const auto agents = agents_of(kLab);
  ASSERT_EQ(agents.size(), 4u);
  const auto crashed_at = std::chrono::steady_clock::now();
  const Result crash = run_testbed({"node", "crash", kLab, "n3"});
  ASSERT_EQ(crash.status, 0) << crash.output;
  EXPECT_NE(crash.output.find("node n3: crash, 1 process crashed"), std::string::npos)
      << crash.output;
  // SIGKILL is sent when the verb returns, but the process takes its own time to exit:
  // polled for it, up to a bound no loaded machine needs.
  for (const auto& [pid, node] : agents) {
    if (node != "n3") continue;
    for (int i = 0; i < 500 && alive(pid); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(alive(pid)) << "n3's agent survived its crash";
  }
  // The run ends, naming the node (a dying node is named), well before its budget.
  const int status = trainer.wait();
  EXPECT_LT(seconds_since(crashed_at), 30);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << trainer.output();
  EXPECT_NE(trainer.output().find("n3"), std::string::npos) << trainer.output();
  // The lab's own processes were not the node's: they live.
  for (int pid : up_processes) EXPECT_TRUE(alive(pid)) << "up's process " << pid;
  std::ifstream csv("/run/testbed/" + kLab + "/timeline.csv");
  std::string all((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
  EXPECT_NE(all.find(",,n3,,,,,\"\",crashed"), std::string::npos) << all;
  // A name the lab lacks is refused, changing nothing.
  const Result bad = run_testbed({"node", "crash", kLab, "n9"});
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("no node 'n9'"), std::string::npos) << bad.output;
}

// The middle link cut to 1 kbit/s at the third iteration: the stall is reported and the run
// ends at its 30 s budget, for the parameter server and for a tree.
void expect_stall_reported_and_run_ended_on_time(LabGuard& guard,
                                                 std::vector<std::string> strategy) {
  const double budget = 30;
  strategy.insert(strategy.end(), {"--max-seconds", "30", "--compute-ms", "20", "--json"});
  BackgroundTrain trainer(guard, kLab, strategy, "/tmp/tbt-faults-stall.log");
  ASSERT_TRUE(trainer.wait_for(R"("iteration":3,)", 120)) << trainer.output();
  const auto cut = std::chrono::steady_clock::now();
  const Result set = run_testbed({"link", "set", kLab, "n2", "n3", "--rate", "1kbit"});
  ASSERT_EQ(set.status, 0) << set.output;
  const int status = trainer.wait();
  // From the cut: at most the budget, plus generous slack; it would hang for 295 s.
  EXPECT_LT(seconds_since(cut), budget + 60);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << trainer.output();
  EXPECT_NE(trainer.output().find("stall: "), std::string::npos) << trainer.output();
  const auto summary = summary_of(trainer.output());
  EXPECT_EQ(summary["ended"], "max-seconds, stalled") << trainer.output();
  // One stall: a few bits a second now and then move a queue, which does not end it.
  ASSERT_EQ(summary["stalls"].size(), 1u) << summary["stalls"];
  const auto& stall = summary["stalls"][0];
  EXPECT_GE(stall["seconds"].get<double>(), 5.0) << stall;
  // Every pair stuck crosses the cut link (n1, n2 on one side; n3, n4 on the other), and
  // the fault is the link's: nothing waits unread at a receiver.
  ASSERT_FALSE(stall["pairs"].empty()) << stall;
  for (const auto& p : stall["pairs"]) {
    const bool left_from = p["from"] == "n1" || p["from"] == "n2";
    const bool left_to = p["to"] == "n1" || p["to"] == "n2";
    EXPECT_NE(left_from, left_to) << p;
    EXPECT_GT(p["queued_bytes"].get<uint64_t>(), 0u) << p;
    EXPECT_EQ(p["cause"], "link") << p;
  }
  // Ended at the budget, not after it (a parameter server's wall time counts from its
  // start; a tree's iterations end before it).
  if (summary.contains("wall_s")) {
    EXPECT_LT(summary["wall_s"].get<double>(), budget + 5);
  }
  double iterating = 0;
  for (double t : summary.value("iteration_s", std::vector<double>{})) iterating += t;
  EXPECT_LT(iterating, budget + 5);
}

TEST_F(Faults, AStalledLinkIsReportedAndAParameterServerRunEndsAtItsBudget) {
  REQUIRE_ROOT();
  expect_stall_reported_and_run_ended_on_time(
      guard_, {"--strategy", "bsp", "--model", "mf", "--iterations", "100000"});
}

TEST_F(Faults, AStalledLinkIsReportedAndATreeRunEndsAtItsBudget) {
  REQUIRE_ROOT();
  expect_stall_reported_and_run_ended_on_time(
      guard_, {"--strategy", "mst", "--iterations", "100000", "--scale", "0.005", "--chunk",
               "16384", "--oracle"});
}

// Polls until none of `agents` is alive, up to a bound no loaded machine needs.
bool all_ended(const std::vector<std::pair<int, std::string>>& agents) {
  const auto start = std::chrono::steady_clock::now();
  const auto any_alive = [&] {
    return std::any_of(agents.begin(), agents.end(), [](const auto& a) { return alive(a.first); });
  };
  while (any_alive() && seconds_since(start) < 30)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return !any_alive();
}

TEST_F(Faults, AControllerKilledOutrightTakesItsAgentsWithItAndTheNextTrainRuns) {
  REQUIRE_ROOT();
  const Result status_before = run_testbed({"status", kLab, "--json"});
  ASSERT_EQ(status_before.status, 0) << status_before.output;
  const auto up_processes = recorded_processes();
  BackgroundTrain trainer(
      guard_, kLab,
      {"--strategy", "bsp", "--model", "mf", "--iterations", "100000", "--compute-ms", "20"},
      "/tmp/tbt-faults-kill.log");
  ASSERT_TRUE(trainer.wait_for("iteration 2/", 120)) << trainer.output();
  const auto agents = agents_of(kLab);
  ASSERT_EQ(agents.size(), 4u);
  ASSERT_EQ(kill(trainer.pid(), SIGKILL), 0);
  trainer.wait();
  // The kernel ends them with their controller (kAgentParentDied): none waits on for it.
  EXPECT_TRUE(all_ended(agents)) << "an agent outlived its controller";

  // The next train needs no `clean`: it forgets the dead one's records and frees its job's
  // slot itself, and runs at once (a lab of 300 nodes spent 10 minutes here, then hung).
  const auto summary = train_json(
      kLab, {"--strategy", "bsp", "--model", "mf", "--iterations", "3", "--compute-ms", "20"});
  EXPECT_EQ(summary["iterations"], 3);
  EXPECT_TRUE(agents_of(kLab).empty());
  const Result clean = run_testbed({"clean"});
  EXPECT_EQ(clean.status, 0) << clean.output;
  // As `up` made it: the same nodes, links and processes of its own.
  const Result status_after = run_testbed({"status", kLab, "--json"});
  ASSERT_EQ(status_after.status, 0) << status_after.output;
  const auto before = nlohmann::json::parse(status_before.output);
  const auto after = nlohmann::json::parse(status_after.output);
  EXPECT_EQ(after["phase"], "up");
  // The same nodes; what their groups measured (compute_used) has moved on with the run.
  const auto made_of = [](nlohmann::json nodes) {
    for (auto& n : nodes) n.erase("compute_used");
    return nodes;
  };
  EXPECT_EQ(made_of(after["nodes"]), made_of(before["nodes"]));
  EXPECT_EQ(recorded_processes(), up_processes);
  for (int pid : up_processes) EXPECT_TRUE(alive(pid)) << "up's process " << pid;

  // `down` removes the rest: the host is as before `up` (no namespace of the lab's).
  ASSERT_EQ(run_testbed({"down", kLab}).status, 0);
  EXPECT_EQ(take_host_snapshot().namespaces.find("tb-" + kLab), std::string::npos);
}

// A reader of the train's output that went away (`testbed train ... | head`): the train is
// not killed half-way by SIGPIPE, leaving its agents, but runs to its end and ends them.
TEST_F(Faults, ATrainWhoseReaderWentAwayStillEndsWhatItStarted) {
  REQUIRE_ROOT();
  const std::string command = std::string(TESTBED_BIN) + " train " + kLab +
                              " --strategy bsp --model mf --iterations 30 --compute-ms 20"
                              " 2>/dev/null | true; echo \"status ${PIPESTATUS[0]}\"";
  const std::string out = shell_output("bash -c '" + command + "'");
  EXPECT_EQ(out, "status 0\n");
  EXPECT_TRUE(agents_of(kLab).empty());
  EXPECT_EQ(
      shell_output("pgrep -f '[t]estbed-agent --control ipc:///run/testbed/" + kLab + "/' | wc -l"),
      "0\n");
}

}  // namespace
}  // namespace testbed::it
