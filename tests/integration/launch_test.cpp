// Users' own programs in a lab: nodes look like hosts (hostname, names resolve), `testbed
// launch` gives each rank torchrun's environment, collects its metric lines, names a
// failing node and stops the rest, and leaves nothing behind however it ends.
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "controller/lab/lab_state.h"
#include "controller/lab/teardown.h"
#include "controller/observe/prometheus_server.h"
#include "host_snapshot.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Every pid a launch's summary names has exited (and, being the launch's children, been
// reaped by it).
void expect_all_gone(const nlohmann::json& summary) {
  for (const auto& n : summary["nodes"]) {
    const int pid = n["pid"];
    EXPECT_EQ(process_start_time(pid), 0u) << n["node"] << " (pid " << pid << ") still runs";
  }
}

int group_records(const std::string& lab) {
  int n = 0;
  for (const auto& p : LabStore().load(lab).processes) n += p.group ? 1 : 0;
  return n;
}

std::string lab_dir(const std::string& lab) {
  return LabStore().dir(lab);
}

class LaunchTest : public Line4Lab {};

TEST_F(LaunchTest, NodesLookLikeHostsToExec) {
  const Result host = run_testbed({"exec", "--lab", "tbt-line4", "n2", "--", "hostname"});
  EXPECT_EQ(host.status, 0);
  EXPECT_EQ(host.output, "n2\n");
  // Its own name resolves to its address, and so do the others'.
  const Result names = run_testbed(
      {"exec", "--lab", "tbt-line4", "n2", "--", "sh", "-c", "getent hosts $(hostname) n4"});
  EXPECT_EQ(names.status, 0) << names.output;
  const auto plan = LabStore().load("tbt-line4").plan;
  for (const auto& n : plan.nodes) {
    if (n.name != "n2" && n.name != "n4") continue;
    EXPECT_NE(names.output.find(n.address.str()), std::string::npos)
        << n.name << ": " << names.output;
  }
  // The host keeps its own name.
  EXPECT_EQ(shell_output("hostname"), shell_output("cat /proc/sys/kernel/hostname"));
  EXPECT_NE(shell_output("hostname"), "n2\n");
}

TEST_F(LaunchTest, RanksGetTorchrunsEnvironmentAndTheirMetricLinesAreCounted) {
  // Each rank reports two iterations, one through the file and one on stdout behind the
  // prefix, plus a gauge and one line of garbage.
  const std::string job =
      "test \"$(hostname)\" = \"$TESTBED_NODE\" || exit 9; "
      "echo \"env $RANK/$WORLD_SIZE $LOCAL_RANK $MASTER_ADDR:$MASTER_PORT {node}\"; "
      "echo '{\"iteration\": 0, \"loss\": 2.0, \"acc\": 0.5}' >> \"$TESTBED_METRICS\"; "
      "echo 'TESTBED_METRICS {\"iteration\": 1, \"seconds\": 0.25, \"loss\": 1.0}'; "
      "echo 'not json' >> \"$TESTBED_METRICS\"";
  const Result r = run_testbed({"launch", "tbt-line4", "--nodes", "n3,n1", "--name", "envjob",
                                "--target-loss", "1.5", "--json", "--", "sh", "-c", job});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("[n3] env 0/2 0 198.18.0."), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[n1] env 1/2 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(":29500 n1"), std::string::npos) << "{node} not replaced: " << r.output;
  // Live events precede the summary (the last line).
  EXPECT_NE(r.output.find("\"event\":\"job_iteration\""), std::string::npos) << r.output;
  const nlohmann::json s = summary_of(r.output);
  ASSERT_TRUE(s.is_object()) << r.output;
  EXPECT_EQ(s["status"], "completed");
  EXPECT_EQ(s["world_size"], 2);
  ASSERT_EQ(s["nodes"].size(), 2u);
  EXPECT_EQ(s["nodes"][0]["node"], "n3");
  for (const auto& n : s["nodes"]) {
    EXPECT_EQ(n["exit_status"], 0);
    EXPECT_EQ(n["iterations"], 2) << n.dump();
    EXPECT_EQ(n["malformed_lines"], 1);
    EXPECT_DOUBLE_EQ(n["gauges"]["acc"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(n["iteration_times_s"][1].get<double>(), 0.25);
  }
  EXPECT_DOUBLE_EQ(s["final_loss"].get<double>(), 1.0);
  EXPECT_TRUE(s["time_to_target_s"].is_number());
  EXPECT_EQ(s["metric_lines"]["malformed"], 2);
  EXPECT_TRUE(s.contains("health"));
  EXPECT_TRUE(s["wan_bytes"].is_number());
  // The results sit beside the built-in runs', and the run directory keeps the output.
  bool found = false;
  for (const auto& e : std::filesystem::directory_iterator(lab_dir("tbt-line4") + "/runs"))
    found |= e.path().filename().string().find("-envjob.json") != std::string::npos;
  EXPECT_TRUE(found);
  std::ifstream out(s["run_dir"].get<std::string>() + "/n1.stdout");
  EXPECT_TRUE(out.good());
  expect_all_gone(s);
  EXPECT_EQ(group_records("tbt-line4"), 0);
}

TEST_F(LaunchTest, AFailingNodeIsNamedAndTheOthersAreStopped) {
  const HostSnapshot before = take_host_snapshot();
  // n3 fails; the others ignore SIGTERM and would sleep for a minute, with a child each.
  const std::string job =
      "if [ \"$RANK\" = 2 ]; then sleep 0.5; echo 'rank 2 gives up' >&2; exit 3; fi; "
      "trap '' TERM; sleep 60 & wait";
  const auto start = Clock::now();
  const Result r = run_testbed({"launch", "tbt-line4", "--json", "--", "sh", "-c", job});
  const double took = seconds_since(start);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("node n3 (rank 2) exited with status 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank 2 gives up"), std::string::npos) << r.output;
  // One second of grace, then SIGKILL: far from the minute the others would take.
  EXPECT_LT(took, 20.0);
  const nlohmann::json s = summary_of(r.output);
  ASSERT_TRUE(s.is_object()) << r.output;
  EXPECT_EQ(s["status"], "failed");
  EXPECT_EQ(s["failed_node"], "n3");
  for (const auto& n : s["nodes"]) {
    if (n["node"] == "n3") continue;
    EXPECT_TRUE(n["stopped_by_testbed"].get<bool>()) << n.dump();
    // Stopped within the grace period after the failure, SIGTERM being ignored.
    EXPECT_LT(n["ended_s"].get<double>() - s["nodes"][2]["ended_s"].get<double>(), 2.0) << n.dump();
  }
  expect_all_gone(s);
  EXPECT_EQ(shell_output("pgrep -xf 'sleep 60' | wc -l"), "0\n");
  EXPECT_EQ(group_records("tbt-line4"), 0);
  EXPECT_EQ(take_host_snapshot(), before);
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Creates `path` when it goes: a job waiting for it ends, whatever the test's outcome
// (else a failed assertion would leave the test waiting for its launch for ever).
struct GoFileAtExit {
  std::string path;
  ~GoFileAtExit() { std::ofstream(path).flush(); }
};

// Polls `ok` every 10 ms for up to `seconds`; whether it came true.
template <typename F>
bool eventually(F ok, double seconds) {
  for (const auto start = Clock::now(); seconds_since(start) < seconds;) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ok();
}

// A node's crash is a fault, not the job's failure: the crashed rank waits, the others go
// on, and `testbed node restart` runs it again with the same command and environment, its
// output appended. A second restart has nothing to run and is refused.
TEST_F(LaunchTest, ACrashedRankWaitsAndARestartRunsItAgainWithTheSameEnvironment) {
  const std::string go = temp_file("tbt-restart-go");
  std::filesystem::remove(go);
  // Every rank says who it is and waits for the test's word.
  const std::string job = "echo \"start $RANK $WORLD_SIZE $MASTER_ADDR\"; while [ ! -e " + go +
                          " ]; do sleep 0.1; done";
  auto launch = std::async(std::launch::async, [&] {
    return run_testbed(
        {"launch", "tbt-line4", "--name", "restartjob", "--json", "--", "sh", "-c", job});
  });
  const GoFileAtExit release{go};  // destroyed before `launch`, whose destructor waits
  ASSERT_TRUE(eventually([] { return group_records("tbt-line4") == 4; }, 30));
  std::string run_dir;
  for (const auto& e : std::filesystem::directory_iterator(lab_dir("tbt-line4") + "/launches"))
    if (e.path().string().find("restartjob") != std::string::npos) run_dir = e.path();
  ASSERT_FALSE(run_dir.empty());
  const std::string out = run_dir + "/n2.stdout";
  ASSERT_TRUE(eventually([&] { return count_of(file_text(out), "start 1 4") == 1; }, 30));
  const std::string first = file_text(out);

  const Result crash = run_testbed({"node", "crash", "tbt-line4", "n2"});
  ASSERT_EQ(crash.status, 0) << crash.output;
  EXPECT_NE(crash.output.find("node n2: crash, 1 process crashed"), std::string::npos)
      << crash.output;
  // The launch goes on without it (it would end within a second, naming n2, otherwise).
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(launch.wait_for(std::chrono::seconds(0)), std::future_status::timeout);

  const Result restart = run_testbed({"node", "restart", "tbt-line4", "n2"});
  ASSERT_EQ(restart.status, 0) << restart.output;
  EXPECT_NE(restart.output.find("node n2: restart, 1 process to run again"), std::string::npos)
      << restart.output;
  ASSERT_TRUE(eventually([&] { return count_of(file_text(out), "start 1 4") == 2; }, 30))
      << file_text(out);
  // The same line twice: the same rank, world and master.
  EXPECT_EQ(file_text(out), first + first);
  const Result again = run_testbed({"node", "restart", "tbt-line4", "n2"});
  EXPECT_EQ(again.status, 2) << again.output;
  EXPECT_NE(again.output.find("node n2 has nothing to restart"), std::string::npos) << again.output;

  std::ofstream(go).flush();
  const Result r = launch.get();
  EXPECT_EQ(r.status, 0) << r.output;
  const nlohmann::json s = summary_of(r.output);
  ASSERT_TRUE(s.is_object()) << r.output;
  EXPECT_EQ(s["status"], "completed");
  EXPECT_EQ(s["nodes"][1]["node"], "n2");
  EXPECT_EQ(s["nodes"][1]["crashes"], 1);
  EXPECT_EQ(s["nodes"][1]["restarts"], 1);
  EXPECT_EQ(s["nodes"][0]["crashes"], 0);
  expect_all_gone(s);
  // Every run of every rank forgotten: the crashed one's record too.
  EXPECT_EQ(group_records("tbt-line4"), 0);
  const std::string timeline = file_text(lab_dir("tbt-line4") + "/timeline.csv");
  EXPECT_NE(timeline.find(",,n2,,,,,\"\",crashed"), std::string::npos) << timeline;
  EXPECT_NE(timeline.find(",,n2,,,,,\"\",restarted"), std::string::npos) << timeline;
  std::filesystem::remove(go);
}

// Never restarted, the crashed rank fails the job once the others have ended, named as a
// crash, not as a program's failure.
TEST_F(LaunchTest, ACrashedRankNeverRestartedFailsTheJobWhenTheOthersEnd) {
  const std::string go = temp_file("tbt-norestart-go");
  std::filesystem::remove(go);
  const std::string job = "while [ ! -e " + go + " ]; do sleep 0.1; done";
  auto launch = std::async(std::launch::async, [&] {
    return run_testbed({"launch", "tbt-line4", "--json", "--", "sh", "-c", job});
  });
  const GoFileAtExit release{go};
  ASSERT_TRUE(eventually([] { return group_records("tbt-line4") == 4; }, 30));
  const Result crash = run_testbed({"node", "crash", "tbt-line4", "n3"});
  ASSERT_EQ(crash.status, 0) << crash.output;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::ofstream(go).flush();
  const Result r = launch.get();
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("node n3 (rank 2) was crashed by a fault of the node"), std::string::npos)
      << r.output;
  const nlohmann::json s = summary_of(r.output);
  ASSERT_TRUE(s.is_object()) << r.output;
  EXPECT_EQ(s["status"], "failed");
  EXPECT_EQ(s["failed_node"], "n3");
  EXPECT_TRUE(s["nodes"][2]["crashed"].get<bool>());
  EXPECT_FALSE(s["nodes"][0]["stopped_by_testbed"].get<bool>());  // they ended themselves
  EXPECT_EQ(group_records("tbt-line4"), 0);
  std::filesystem::remove(go);
}

TEST_F(LaunchTest, MaxSecondsAndCtrlCStopEveryProcess) {
  const Result timed =
      run_testbed({"launch", "tbt-line4", "--max-seconds", "1", "--json", "--", "sleep", "60"});
  EXPECT_EQ(timed.status, 1) << timed.output;
  const nlohmann::json s = summary_of(timed.output);
  ASSERT_TRUE(s.is_object()) << timed.output;
  EXPECT_EQ(s["status"], "timed_out");
  EXPECT_LT(s["wall_s"].get<double>(), 10.0);
  expect_all_gone(s);

  const pid_t launch = spawn_testbed({"launch", "tbt-line4", "--", "sh", "-c", "sleep 61 & wait"});
  // Until every rank is recorded as started.
  for (int i = 0; i < 500 && group_records("tbt-line4") < 4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(group_records("tbt-line4"), 4);
  kill(launch, SIGINT);
  int status = 0;
  const auto start = Clock::now();
  waitpid(launch, &status, 0);
  EXPECT_LT(seconds_since(start), 10.0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGINT) << status;
  EXPECT_EQ(shell_output("pgrep -xf 'sleep 61' | wc -l"), "0\n");
  EXPECT_EQ(group_records("tbt-line4"), 0);
}

TEST_F(LaunchTest, AControllerKilledOutrightTakesTheWholeJobWithIt) {
  const pid_t launch = spawn_testbed({"launch", "tbt-line4", "--", "sh", "-c", "sleep 62 & wait"});
  guard_.own(launch);
  for (int i = 0; i < 500 && group_records("tbt-line4") < 4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(group_records("tbt-line4"), 4);
  // Until each rank's command and its child run.
  for (int i = 0; i < 500 && shell_output("pgrep -xf 'sleep 62' | wc -l") != "4\n"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill(launch, SIGKILL);
  waitpid(launch, nullptr, 0);
  // Each rank's supervisor hears of it from the kernel and stops its group, the shell's
  // child included: SIGTERM, SIGKILL after a second. Five seconds is far beyond that.
  std::vector<int> leaders;
  for (const auto& p : LabStore().load("tbt-line4").processes)
    if (p.group) leaders.push_back(p.pid);
  const auto leaders_left = [&] {
    int n = 0;
    for (int pid : leaders) n += process_start_time(pid) != 0 ? 1 : 0;
    return n;
  };
  std::string left;
  for (int i = 0; i < 500; ++i) {
    left = shell_output("pgrep -xf 'sleep 62' | wc -l");
    if (left == "0\n" && leaders_left() == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(left, "0\n");
  EXPECT_EQ(leaders_left(), 0);
  const Result down = run_testbed({"down", "tbt-line4"});
  EXPECT_EQ(down.status, 0) << down.output;
}

TEST_F(LaunchTest, BadInputStartsNothing) {
  const auto refused = [](const std::vector<std::string>& args, const std::string& says) {
    const Result r = run_testbed(args);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << r.output;
  };
  refused({"launch", "tbt-line4", "--nodes", "n1,n9", "--", "true"}, "no node 'n9'");
  refused({"launch", "tbt-line4", "--", "tb-no-such-program"}, "no such program");
  refused({"launch", "tbt-line4"}, "no command");
  refused({"launch", "tbt-line4", "--", ""}, "no command");
  refused({"launch", "tbt-no-such-lab", "--", "true"}, "tbt-no-such-lab");
  refused({"launch", "tbt-line4", "--max-seconds", "soon", "--", "true"}, "--max-seconds");
  EXPECT_FALSE(std::filesystem::exists(lab_dir("tbt-line4") + "/launches"));
  EXPECT_EQ(group_records("tbt-line4"), 0);
}

TEST(LaunchIdentity, DownRemovesHostnamesAndHostsFiles) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-line4");
  ASSERT_EQ(
      run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/line4.yaml", "--prometheus", "off"}).status,
      0);
  const auto ids = LabStore().load("tbt-line4").identities;
  ASSERT_EQ(ids.size(), 4u);
  for (const auto& id : ids) {
    EXPECT_NE(id.uts_inode, 0u);
    EXPECT_TRUE(std::filesystem::exists("/run/testbed-uts/" + id.ns));
    EXPECT_TRUE(std::filesystem::exists("/etc/netns/" + id.ns + "/hosts"));
  }
  // `ip netns exec` follows the same convention for the hosts file.
  const std::string via_ip = shell_output("ip netns exec " + ids[2].ns + " getent hosts n1");
  EXPECT_NE(via_ip.find("n1"), std::string::npos) << via_ip;
  ASSERT_EQ(run_testbed({"down", "tbt-line4"}).status, 0);
  for (const auto& id : ids) {
    EXPECT_FALSE(std::filesystem::exists("/run/testbed-uts/" + id.ns));
    EXPECT_FALSE(std::filesystem::exists("/etc/netns/" + id.ns));
  }
  EXPECT_EQ(shell_output("grep -c ' /run/testbed-uts/' /proc/self/mountinfo"), "0\n");
}

// The hostnames' directory is the testbed's own tmpfs, also where an older build left it
// bound onto itself on the disk: creating the namespaces' placeholders there cost 0.1-0.2 ms
// apiece on a disk's file system (docs/benchmarks.md).
TEST(LaunchIdentity, TheHostnamesDirectoryIsMovedOntoATmpfsWhileEmpty) {
  REQUIRE_ROOT();
  const std::string dir = "/run/testbed-uts";
  if (std::filesystem::exists(dir) && !std::filesystem::is_empty(dir))
    GTEST_SKIP() << "a lab is up on this machine; its hostnames are in " << dir;
  // The older layout: whatever is mounted there undone, then the directory bound onto itself.
  while (umount2(dir.c_str(), MNT_DETACH) == 0) {
  }
  std::filesystem::create_directories(dir);
  ASSERT_EQ(mount(dir.c_str(), dir.c_str(), "none", MS_BIND, nullptr), 0) << strerror(errno);
  LabGuard guard("tbt-line4");
  ASSERT_EQ(
      run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/line4.yaml", "--prometheus", "off"}).status,
      0);
  struct statfs fs {};
  ASSERT_EQ(statfs(dir.c_str(), &fs), 0);
  EXPECT_EQ(fs.f_type, TMPFS_MAGIC);
  EXPECT_EQ(std::filesystem::status(dir).permissions() & std::filesystem::perms::all,
            std::filesystem::perms(0755));
  const Result name = run_testbed({"exec", "--lab", "tbt-line4", "n3", "--", "hostname"});
  EXPECT_EQ(name.output, "n3\n");
  // Shared, so that `down` reaches the copies in the nodes' own mount namespaces.
  EXPECT_NE(shell_output("grep ' " + dir + " ' /proc/self/mountinfo").find("shared:"),
            std::string::npos);
  ASSERT_EQ(run_testbed({"down", "tbt-line4"}).status, 0);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

TEST(LaunchMetrics, AJobsIterationsReachTheLabsPrometheusPerNode) {
  REQUIRE_ROOT();
  if (!find_prometheus()) GTEST_SKIP() << "prometheus is not installed";
  LabGuard guard("tbt-triangle");
  ASSERT_EQ(run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/triangle.yaml"}).status, 0);
  const auto status =
      nlohmann::json::parse(run_testbed({"status", "tbt-triangle", "--json"}).output);
  ASSERT_TRUE(status.contains("prometheus_url"));
  const std::string url = status["prometheus_url"];
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  // Three iterations a node, then long enough for a few one-second scrapes.
  const std::string job =
      "for i in 0 1 2; do echo \"{\\\"iteration\\\": $i, \\\"loss\\\": 1}\" >> "
      "\"$TESTBED_METRICS\"; done; sleep 4";
  const pid_t launch =
      spawn_testbed({"launch", "tbt-triangle", "--name", "promjob", "--", "sh", "-c", job});
  guard.own(launch);
  const std::string query =
      "/api/v1/query?query=testbed_iterations_total%7Bstrategy%3D%22promjob%22%7D";
  int series = 0;
  for (int i = 0; i < 100 && series < 3; ++i) {  // up to 10 s: scrapes are every second
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto body = http_get(port, query);
    if (!body) continue;
    const auto j = nlohmann::json::parse(*body, nullptr, false);
    if (j.is_discarded()) continue;
    series = 0;
    for (const auto& s : j["data"]["result"])
      series += s["value"][1] == "3" && s["metric"].contains("node") ? 1 : 0;
  }
  EXPECT_EQ(series, 3) << "testbed_iterations_total per node, while the job runs";
  int st = 0;
  waitpid(launch, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
}

}  // namespace
}  // namespace testbed::it
