// A node's compute on the real kernel (docs/compute.md): `up` makes a control group per
// node with the profile's limits (read back from the kernel's files), what runs in a node
// joins its group, a CPU-bound loop at `cpus: 0.5` gets half a CPU, a memory hog beyond
// `memory` is killed by the kernel and counted, `node set` changes the share in place, and
// `down` removes the groups. Run with the cgroup version the host has (this CI machine: v1;
// scripts/kernel-test.sh runs the same tests on v2 under the guest kernel).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "host_snapshot.h"
#include "netns/node_cgroup.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-cpu";

std::string profile() {
  const std::string path = temp_file("tbt-cpu.yaml");
  std::ofstream(path) << "lab: " << kLab << "\n"
                      << "nodes:\n"
                      << "  a: {cpus: 0.5, memory: 64MiB}\n"
                      << "  b: {}\n"
                      << "links:\n"
                      << "  - {endpoints: [a, b], bandwidth: 100mbit}\n";
  return path;
}

std::string ns_of(const std::string& node) {
  return "tb-" + kLab + "-" + node;
}

std::string cpu_file(const CgroupLayout& l, const std::string& node, const std::string& v1,
                     const std::string& v2) {
  return l.version == CgroupLayout::Version::kV1
             ? l.v1_root.at("cpu") + "/" + ns_of(node) + "/" + v1
             : l.v2_root + "/" + ns_of(node) + "/" + v2;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

class Compute : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_ROOT();
    before_ = take_host_snapshot();
    const Result up = run_testbed({"up", profile()});
    ASSERT_EQ(up.status, 0) << up.output;
    layout_ = host_cgroup_layout();
  }
  void TearDown() override {
    if (!running_as_root()) return;
    const Result down = run_testbed({"down", kLab});
    EXPECT_EQ(down.status, 0) << down.output;
    EXPECT_EQ(take_host_snapshot(), before_) << "the lab left something behind";
  }
  HostSnapshot before_;
  LabGuard guard_{kLab};
  CgroupLayout layout_;
};

TEST_F(Compute, EachNodeHasItsGroupWithTheProfilesLimits) {
  if (layout_.version == CgroupLayout::Version::kV1) {
    EXPECT_EQ(first_line(cpu_file(layout_, "a", "cpu.cfs_quota_us", "")), "50000");
    EXPECT_EQ(first_line(cpu_file(layout_, "b", "cpu.cfs_quota_us", "")), "-1");
    EXPECT_EQ(
        first_line(layout_.v1_root.at("memory") + "/" + ns_of("a") + "/memory.limit_in_bytes"),
        "67108864");
  } else {
    EXPECT_EQ(first_line(cpu_file(layout_, "a", "", "cpu.max")), "50000 100000");
    EXPECT_EQ(first_line(cpu_file(layout_, "b", "", "cpu.max")), "max 100000");
    EXPECT_EQ(first_line(layout_.v2_root + "/" + ns_of("a") + "/memory.max"), "67108864");
  }
  // What runs in the node is in its groups: /proc/self/cgroup names them.
  const Result in = run_testbed({"exec", "--lab", kLab, "a", "--", "cat", "/proc/self/cgroup"});
  ASSERT_EQ(in.status, 0) << in.output;
  EXPECT_NE(in.output.find("/" + ns_of("a")), std::string::npos) << in.output;
  std::cout << "nodes' groups: cgroup " << version_name(layout_) << "\n";
  const Result status = run_testbed({"status", kLab});
  EXPECT_NE(status.output.find("compute (cgroup " + version_name(layout_) + ")"), std::string::npos)
      << status.output;
}

// Four seconds of a busy loop in a node at cpus 0.5: the quota in force is half a CPU, the
// quota held the loop back in most periods, and in the periods the group was running it got
// half a CPU. Per period, not over the command's wall time: `testbed exec`'s own start (0.7 s
// in a TCG guest, measured) is no time of the loop's. On a loaded machine the loop may get
// a little less than its quota, never more: 0.40-0.55 (a partial first and last period
// among about forty take up to 2.5% off).
TEST_F(Compute, ABusyLoopAtHalfACpuGetsHalfACpu) {
  const NodeCgroupUsage before = read_node_cgroup(layout_, ns_of("a"));
  const Result loop = run_testbed(
      {"exec", "--lab", kLab, "a", "--", "timeout", "4", "sh", "-c", "while :; do :; done"});
  EXPECT_EQ(loop.status, 124) << loop.output;  // timeout's "timed out"
  const NodeCgroupUsage after = read_node_cgroup(layout_, ns_of("a"));
  ASSERT_TRUE(after.cpus.has_value());
  EXPECT_DOUBLE_EQ(*after.cpus, 0.5);
  const uint64_t periods = after.periods - before.periods;
  ASSERT_GT(periods, 0u);
  const double cpu_s = after.cpu_s - before.cpu_s;
  const double share = cpu_s / (static_cast<double>(periods) * kCpuPeriodUs / 1e6);
  EXPECT_GE(share, 0.40) << "CPU time " << cpu_s << " s in " << periods << " periods";
  EXPECT_LE(share, 0.55) << "CPU time " << cpu_s << " s in " << periods << " periods";
  EXPECT_GT(after.throttled_periods - before.throttled_periods, periods / 2);
}

TEST_F(Compute, AMemoryHogBeyondTheLimitIsKilledAndCounted) {
  const Result hog = run_testbed({"exec", "--lab", kLab, "a", "--", "python3", "-c",
                                  "b = bytearray(256 * 2**20); print(len(b))"});
  EXPECT_EQ(hog.status, 128 + 9) << hog.output;  // SIGKILL, by the OOM killer
  EXPECT_GE(read_node_cgroup(layout_, ns_of("a")).oom_kills, 1u);
  // The same in the unlimited node runs to its end.
  const Result fine = run_testbed({"exec", "--lab", kLab, "b", "--", "python3", "-c",
                                   "b = bytearray(256 * 2**20); print(len(b))"});
  EXPECT_EQ(fine.status, 0) << fine.output;
  EXPECT_EQ(read_node_cgroup(layout_, ns_of("b")).oom_kills, 0u);
}

// A launched rank killed by its node's memory limit is named as such, and the job ends as
// with any failed rank.
TEST_F(Compute, ALaunchedRankKilledByTheMemoryLimitIsNamedAsSuch) {
  const Result r = run_testbed({"launch", kLab, "--nodes", "a", "--", "/usr/bin/python3", "-c",
                                "b = bytearray(256 * 2**20)"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("node a (rank 0) was killed by its node's memory limit"),
            std::string::npos)
      << r.output;
}

// A train agent killed by its node's memory limit is named as such: RR-Sync's dense
// ResNet-50 (25.6 M parameters, 102 MB as floats) cannot fit node a's 64 MiB, and the run
// ends naming the node and the cause rather than a bare death (or a hang).
TEST_F(Compute, ATrainAgentKilledByTheMemoryLimitIsNamedAsSuch) {
  const Result r = run_testbed({"train", kLab, "--strategy", "rr-sync", "--model", "resnet50",
                                "--scale", "1", "--iterations", "3"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("the agent of node a was killed by its node's memory limit"),
            std::string::npos)
      << r.output;
  EXPECT_GE(read_node_cgroup(layout_, ns_of("a")).oom_kills, 1u);
}

// A job whose node's share held it back: the summary says which node, and the health
// verdict notes that its pace was its compute limit, not the network.
TEST_F(Compute, ALaunchHeldBackByItsShareIsNamedInTheHealthVerdict) {
  const Result r = run_testbed({"launch", kLab, "--nodes", "a,b", "--json", "--", "sh", "-c",
                                "timeout 2 sh -c 'while :; do :; done'; exit 0"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto s = nlohmann::json::parse(r.output.substr(r.output.rfind("\n{") + 1));
  EXPECT_EQ(s["compute"]["throttled_nodes"], nlohmann::json::array({"a"})) << s["compute"];
  EXPECT_EQ(s["health"]["compute_limited_nodes"], nlohmann::json::array({"a"}));
  EXPECT_GT(s["compute"]["nodes"]["a"]["throttled_share"].get<double>(), 0.5);
  EXPECT_EQ(s["compute"]["nodes"]["b"]["throttled_s"].get<double>(), 0.0);
  bool noted = false;
  for (const auto& n : s["health"]["notes"])
    noted =
        noted || n.get<std::string>().find("its pace is its compute limit") != std::string::npos;
  EXPECT_TRUE(noted) << s["health"].dump();
}

// --compute-as cpu: the clock's compute is CPU burnt in the node, so its share slows it;
// the default waits and burns next to nothing. Node a has half a CPU: its CPU time is at
// least the clocks' (the load cannot lower that) and its quota holds it back.
TEST_F(Compute, ComputeBurntOnTheCpuIsSlowedByTheNodesShareAndAWaitIsNot) {
  const auto run = [&](const std::string& as) {
    const Result r =
        run_testbed({"train", kLab, "--strategy", "bsp", "--compute-ms", "60", "--compute-as", as,
                     "--iterations", "6", "--eval-every", "10", "--json"});
    EXPECT_EQ(r.status, 0) << r.output;
    return nlohmann::json::parse(r.output.substr(r.output.rfind("\n{") + 1));
  };
  const auto cpu = run("cpu");
  const auto wait = run("wait");
  EXPECT_EQ(cpu["compute_as"], "cpu");
  EXPECT_EQ(wait["compute_as"], "wait");
  EXPECT_GE(cpu["compute"]["nodes"]["a"]["cpu_s"].get<double>(), 6 * 0.060) << cpu["compute"];
  // The wait burns no compute of its own: on a real CPU its node's CPU time stays under half
  // the clocks' 0.36 s. Under a CPU emulated in software (scripts/kernel-test.sh) the
  // agent's own work costs more than that (1.14 s measured in CI), so there the wait is
  // judged only against the CPU reading, which burns the 0.36 s on top of the same work.
  // When the agent's own work alone held node a at its quota in the waiting run (throttled
  // there too: seen in CI under the emulated CPU, 1.30 s throttled, 1.50 s of CPU), both
  // runs' CPU times measure the quota over their wall time, not the work, and are not
  // compared: the burnt clocks are judged by the floor and the throttling above and below.
  const double wait_cpu_s = wait["compute"]["nodes"]["a"]["cpu_s"].get<double>();
  const bool wait_held_at_quota = wait["compute"]["nodes"]["a"]["throttled_s"].get<double>() > 0;
  if (!std::getenv("TESTBED_EMULATED_CPU")) {
    EXPECT_LT(wait_cpu_s, 6 * 0.060 / 2) << wait["compute"];
  }
  const bool compared = !std::getenv("TESTBED_EMULATED_CPU") || !wait_held_at_quota;
  if (compared) {
    EXPECT_LT(wait_cpu_s, cpu["compute"]["nodes"]["a"]["cpu_s"].get<double>()) << wait["compute"];
  }
  std::cout << "[ measured ] node a (half a CPU): " << cpu["compute"]["nodes"]["a"]["cpu_s"]
            << " s of CPU burning the clocks, " << wait_cpu_s << " s waiting them"
            << (compared ? "" : " (held at its quota while waiting: not compared)") << "\n";
  // The quota held node a back while it burnt (a clock that starts with quota left in its
  // period can run unthrottled for 60 ms, so no wall-time floor above 60 ms holds).
  EXPECT_GT(cpu["compute"]["nodes"]["a"]["throttled_s"].get<double>(), 0.0) << cpu["compute"];
  EXPECT_GE(cpu["clock_compute"]["mean_s"].get<double>(), 0.060) << cpu["clock_compute"];
  // A wait lasts its length on any node: at least 60 ms.
  EXPECT_GE(wait["clock_compute"]["median_s"].get<double>(), 0.060) << wait["clock_compute"];
}

TEST_F(Compute, NodeSetChangesTheShareInPlaceAndLogsIt) {
  Result r = run_testbed({"node", "set", kLab, "a", "--cpus", "1.5"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_DOUBLE_EQ(read_node_cgroup(layout_, ns_of("a")).cpus.value_or(0), 1.5);
  r = run_testbed({"node", "set", kLab, "a", "--cpus", "all"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(read_node_cgroup(layout_, ns_of("a")).cpus);
  EXPECT_EQ(run_testbed({"node", "set", kLab, "a", "--cpus", "0"}).status, 2);
  EXPECT_NE(run_testbed({"node", "set", kLab, "zz", "--cpus", "1"}).status, 0);
  std::ifstream log("/run/testbed/" + kLab + "/timeline.csv");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find(",cpus=1.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find(",cpus=all\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace testbed::it

namespace testbed::it {
namespace {

// A schedule's cpus event: the timeline sets the share at its time and logs it.
TEST(ComputeSchedule, TheTimelineSetsTheShareAtItsTime) {
  REQUIRE_ROOT();
  const std::string lab = "tbt-cpu-sched";
  LabGuard guard(lab);
  const std::string path = temp_file("tbt-cpu-sched.yaml");
  std::ofstream(path) << "lab: " << lab << "\n"
                      << "nodes:\n"
                      << "  a: {schedule: [{at: 1s, event: cpus, cpus: 0.2}]}\n"
                      << "  b: {}\n"
                      << "links:\n"
                      << "  - {endpoints: [a, b], bandwidth: 100mbit}\n";
  const Result up = run_testbed({"up", path, "--prometheus", "off"});
  ASSERT_EQ(up.status, 0) << up.output;
  const CgroupLayout layout = host_cgroup_layout();
  // Polled for up to 30 s: the change is due 1 s after the timeline starts.
  std::optional<double> cpus;
  for (int i = 0; i < 300 && !(cpus = read_node_cgroup(layout, "tb-" + lab + "-a").cpus); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(cpus);
  EXPECT_DOUBLE_EQ(*cpus, 0.2);
  EXPECT_FALSE(read_node_cgroup(layout, "tb-" + lab + "-b").cpus);
  // The timeline logs a change once it is made: the line may come a moment after the group
  // changed (polled for up to 30 s, as the change was).
  const std::string line = ",a,,,,,\"\",cpus=0.2\n";
  std::string text;
  for (int i = 0; i < 300; ++i) {
    std::ifstream log("/run/testbed/" + lab + "/timeline.csv");
    text.assign(std::istreambuf_iterator<char>(log), std::istreambuf_iterator<char>());
    if (text.find(line) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(run_testbed({"down", lab}).status, 0);
}

}  // namespace
}  // namespace testbed::it
