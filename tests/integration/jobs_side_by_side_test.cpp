// Jobs side by side on one lab (docs/jobs.md): a `train` and a `launch` at once, each with
// its own slot, rendezvous port and WAN bytes counted by the kernel per job (its control
// group marks its packets), and the two jobs' bytes adding up to what the links' devices
// received; a second train refused while one runs; nothing left once both end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-jobs";

std::string command_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  return out;
}

// IP bytes every link of the lab has delivered so far: the received bytes of each
// namespace's veth ends less their Ethernet headers (14 bytes a frame). Only the veths:
// with netem, a receiver's IFB device counts every packet again.
double delivered_ip_bytes(const std::vector<std::string>& namespaces) {
  double total = 0;
  for (const auto& ns : namespaces) {
    const auto links = nlohmann::json::parse(command_output("ip -n " + ns + " -d -s -j link show"));
    for (const auto& l : links) {
      if (!l.contains("linkinfo") || l["linkinfo"].value("info_kind", "") != "veth") continue;
      const auto& rx = l["stats64"]["rx"];
      total += rx["bytes"].get<double>() - 14 * rx["packets"].get<double>();
    }
  }
  return total;
}

std::vector<std::string> job_groups_left() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(root, ec))
      if (e.path().filename().string().find("tbj") != std::string::npos &&
          e.path().string().find(kLab) != std::string::npos)
        out.push_back(e.path());
  return out;
}

TEST(JobsSideBySide, ATrainAndALaunchEachCountTheirOwnBytesAndTogetherTheLinks) {
  REQUIRE_ROOT();
  LabGuard guard(kLab);
  const std::string profile = temp_file(kLab + ".yaml");
  // A line, so that the launch's bytes from c to a cross b: counted on both links. Node a
  // has a compute group: on a cgroup v2 host the jobs' groups there are its children.
  std::ofstream(profile) << "lab: " << kLab
                         << "\nnodes: {a: {cpus: 1}, b: {}, c: {}}\nlinks:\n"
                            "  - {endpoints: [a, b], bandwidth: 20mbit, delay: 2ms}\n"
                            "  - {endpoints: [b, c], bandwidth: 20mbit, delay: 2ms}\n";
  const Result up = run_testbed({"up", profile});
  ASSERT_EQ(up.status, 0) << up.output;
  const Result shown = run_testbed({"status", kLab, "--json"});
  ASSERT_EQ(shown.status, 0) << shown.output;
  std::vector<std::string> namespaces;
  const auto lab_status = nlohmann::json::parse(shown.output);
  for (const auto& n : lab_status["nodes"]) namespaces.push_back(n["namespace"]);
  ASSERT_EQ(namespaces.size(), 3u) << up.output << shown.output;
  const double before = delivered_ip_bytes(namespaces);

  BackgroundTrain trainer(
      guard, kLab,
      {"--strategy", "bsp", "--model", "mf", "--iterations", "80", "--compute-ms", "100", "--json"},
      "/tmp/tbt-jobs-train.log");
  ASSERT_TRUE(trainer.wait_for("\"iteration\":2,", 120)) << trainer.output();
  // While it trains: a second train is refused, changing nothing.
  const Result second = run_testbed({"train", kLab, "--strategy", "bsp", "--iterations", "2"});
  EXPECT_EQ(second.status, 2) << second.output;
  EXPECT_NE(second.output.find("one train per lab at a time"), std::string::npos) << second.output;
  // A launch beside it: rank 0 in a serves, rank 1 in c sends for 4 s, over b. Its port
  // is the one its slot gives (the default is the first job's), which the ranks use.
  const Result launch = run_testbed(
      {"launch", kLab, "--nodes", "a,c", "--name", "bulk", "--json", "--", "sh", "-c",
       "if [ \"$RANK\" = 0 ]; then exec iperf3 -s -1 -p \"$MASTER_PORT\"; fi; "
       "for i in $(seq 100); do iperf3 -c \"$MASTER_ADDR\" -p \"$MASTER_PORT\" -t 4 && exit 0; "
       "sleep 0.1; done; exit 1"});
  ASSERT_EQ(launch.status, 0) << launch.output;
  const auto l = summary_of(launch.output);
  const int status = trainer.wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << trainer.output();
  const auto t = summary_of(trainer.output());
  const double after = delivered_ip_bytes(namespaces);

  const auto& lj = l["job_traffic"];
  const auto& tj = t["job_traffic"];
  ASSERT_TRUE(lj["accounted"].get<bool>()) << lj;
  ASSERT_TRUE(tj["accounted"].get<bool>()) << tj;
  EXPECT_EQ(tj["slot"], 1);
  EXPECT_EQ(lj["slot"], 2);
  EXPECT_EQ(l["master_port"], 29501);
  EXPECT_EQ(tj["label"], "bsp");
  EXPECT_EQ(lj["label"], "bulk");
  const double own_t = tj["wan_bytes"].get<double>(), own_l = lj["wan_bytes"].get<double>();
  const double links = after - before;
  std::printf("  train %.0f B, launch %.0f B, sum %.0f B, links %.0f B (%.3f%%)\n", own_t, own_l,
              own_t + own_l, links, 100 * (own_t + own_l - links) / links);
  // 4 s at 20 Mbit/s over two links, shared with the train: 16.6 MB of the launch's here;
  // a loaded machine's TCP gets less, never a fifth of it.
  EXPECT_GT(own_l, 3e6);
  EXPECT_GT(own_t, 0.1e6);
  EXPECT_NEAR(own_t + own_l, links, 0.01 * links);
  // The launch ran inside the train's time: what the links delivered then holds both jobs'
  // bytes, the launch's too though its counters went with it.
  EXPECT_GT(tj["link_bytes"].get<double>(), 0.99 * (own_t + own_l)) << tj;
  EXPECT_LE(tj["link_bytes"].get<double>(), links);
  // The launch's bytes go c>b>a (and its ACKs back): none of them on a direction the route
  // does not take, while the train's are on every link.
  const auto launch_bytes = [&](const char* d) {
    return lj["directions"].contains(d) ? lj["directions"][d]["bytes"].get<double>() : 0.0;
  };
  EXPECT_GT(launch_bytes("c>b"), 1.5e6);
  EXPECT_GT(launch_bytes("b>a"), 1.5e6);
  EXPECT_NEAR(launch_bytes("c>b"), launch_bytes("b>a"), 0.01 * launch_bytes("c>b"));
  EXPECT_LT(launch_bytes("a>b"), 0.1 * launch_bytes("b>a"));  // ACKs
  EXPECT_GT(tj["directions"]["a>b"]["bytes"].get<double>(), 0);

  // Both ended: their slots, rules and groups are gone, the lab stays up.
  EXPECT_TRUE(job_groups_left().empty()) << job_groups_left().front();
  EXPECT_TRUE(std::filesystem::is_empty("/run/testbed/" + kLab + "/jobs"));
  for (const auto& ns : namespaces) {
    const std::string rules =
        command_output("ip netns exec " + ns + " iptables -t mangle -S TBJM 2>&1");
    EXPECT_EQ(rules.find("--set-dscp"), std::string::npos) << ns << ": " << rules;
  }
  const Result down = run_testbed({"down", kLab});
  ASSERT_EQ(down.status, 0) << down.output;
}

// A job killed outright leaves its slot, groups and rules: the next job takes them back,
// and `down` removes a group nobody took back.
TEST(JobsSideBySide, AKilledJobsSlotIsTakenBackAndDownRemovesItsGroups) {
  REQUIRE_ROOT();
  const std::string lab = kLab + "-kill";
  LabGuard guard(lab);
  const std::string profile = temp_file(lab + ".yaml");
  std::ofstream(profile) << "lab: " << lab
                         << "\nnodes: {a: {}, b: {}}\nlinks:\n"
                            "  - {endpoints: [a, b], bandwidth: 100mbit, delay: 1ms}\n";
  ASSERT_EQ(run_testbed({"up", profile}).status, 0);
  const pid_t pid = spawn_testbed({"launch", lab, "--name", "sleeper", "--", "sleep", "30"});
  guard.own(pid);
  const std::string record = "/run/testbed/" + lab + "/jobs/1.json";
  for (int i = 0; i < 300 && !std::filesystem::exists(record); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(std::filesystem::exists(record));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // its ranks started
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  // Its ranks die with it (their supervisor's parent-death signal); the next job finds
  // the slot's owner gone and takes slot 1 back.
  const Result next = run_testbed({"launch", lab, "--name", "next", "--json", "--", "true"});
  ASSERT_EQ(next.status, 0) << next.output;
  EXPECT_EQ(summary_of(next.output)["job_traffic"]["slot"], 1) << next.output;
  EXPECT_EQ(summary_of(next.output)["master_port"], 29500);
  const Result down = run_testbed({"down", lab});
  ASSERT_EQ(down.status, 0) << down.output;
  std::error_code ec;
  for (const char* root : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"})
    for (const auto& e : std::filesystem::directory_iterator(root, ec))
      EXPECT_EQ(e.path().filename().string().find(lab), std::string::npos) << e.path();
}

}  // namespace
}  // namespace testbed::it
