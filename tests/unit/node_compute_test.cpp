// A node's compute (docs/compute.md): the profile's keys read and refused where they are
// written, the plan carrying them both ways through its JSON, and the control groups made,
// changed, read and removed, over an ordinary directory laid out as each cgroup version's
// hierarchy (the control files are then plain files the test reads back).
#include "controller/topology/node_compute.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/node_events.h"
#include "controller/topology/straggler.h"
#include "netns/node_cgroup.h"
#include "read_text.h"
#include "validation_errors.h"

namespace testbed {
namespace {

std::string profile(const std::string& a) {
  return "lab: c\nnodes:\n  a: " + a +
         "\n  b: {}\nlinks:\n  - {endpoints: [a, b], bandwidth: 10mbit}\n";
}

std::vector<std::string> errors_of(const std::string& a) {
  return validation_errors([&] { parse_profile_text(profile(a), "c.yaml"); });
}

TEST(NodeCompute, ReadsCpusPinningAndMemory) {
  const Topology t =
      parse_profile_text(profile("{cpus: 0.5, cpuset: [1, 0], memory: 2GiB}"), "c.yaml");
  ASSERT_TRUE(t.nodes[0].compute.cpus);
  EXPECT_DOUBLE_EQ(*t.nodes[0].compute.cpus, 0.5);
  EXPECT_EQ(t.nodes[0].compute.cpuset, (std::vector<int>{1, 0}));
  EXPECT_EQ(t.nodes[0].compute.memory_bytes, 2ULL << 30);
  EXPECT_FALSE(t.nodes[1].compute.any());
}

TEST(NodeCompute, MemorySizesAreBinary) {
  std::string why;
  EXPECT_EQ(parse_memory_size("512MiB", why), 512ULL << 20);
  EXPECT_EQ(parse_memory_size("512m", why), 512ULL << 20);
  EXPECT_EQ(parse_memory_size("3g", why), 3ULL << 30);
  EXPECT_EQ(parse_memory_size("1048576", why), 1ULL << 20);
  EXPECT_FALSE(parse_memory_size("2GB", why));
  EXPECT_NE(why.find("unknown unit"), std::string::npos);
  EXPECT_FALSE(parse_memory_size("1.5GiB", why));
  EXPECT_FALSE(parse_memory_size("99999999999999999GiB", why));
  EXPECT_EQ(format_memory_size(2ULL << 30), "2GiB");
  EXPECT_EQ(format_memory_size(1536ULL << 20), "1536MiB");
  EXPECT_EQ(format_memory_size(1000), "1000B");
}

TEST(NodeCompute, RefusesBadValuesWhereTheyAreWritten) {
  EXPECT_EQ(errors_of("{cpus: 0}"),
            std::vector<std::string>{"c.yaml:3:13: node 'a': cpus: 0 is outside 0.01 to 1024 "
                                     "(the kernel's smallest quota is 1% of a CPU)"});
  EXPECT_EQ(
      errors_of("{cpus: half}"),
      std::vector<std::string>{
          "c.yaml:3:13: node 'a': cpus: 'half' is not a number of CPUs (0.5 is half of one)"});
  EXPECT_EQ(errors_of("{cpuset: [0, 0]}"),
            std::vector<std::string>{"c.yaml:3:19: node 'a': cpuset: CPU 0 is listed twice"});
  EXPECT_EQ(errors_of("{cpuset: [-1]}"),
            std::vector<std::string>{"c.yaml:3:16: node 'a': cpuset: '-1' is not a CPU number"});
  EXPECT_EQ(errors_of("{memory: 4MiB}"),
            std::vector<std::string>{"c.yaml:3:15: node 'a': memory: 4MiB is below 16MiB, too "
                                     "little for any process to start"});
  ASSERT_EQ(errors_of("{cpu: 1}").size(), 1u);
  EXPECT_NE(errors_of("{cpu: 1}")[0].find("cpu"), std::string::npos);
}

TEST(NodeCompute, ThePlanCarriesItBothWays) {
  const Topology t =
      parse_profile_text(profile("{cpus: 0.25, cpuset: [1], memory: 64MiB}"), "c.yaml");
  const Plan plan = make_plan(t, false);
  EXPECT_EQ(plan.nodes[0].compute, t.nodes[0].compute);
  const nlohmann::json j = plan_to_json(plan);
  EXPECT_EQ(plan_from_json(j).nodes[0].compute, t.nodes[0].compute);
  EXPECT_FALSE(j["nodes"][1].contains("compute"));  // none: nothing written
  EXPECT_FALSE(plan_from_json(j).nodes[1].compute.any());
}

// A node's share over time: cpus events in its schedule, carried by the plan to the
// timeline (as a change of its own, not a fault), refused when malformed.
TEST(NodeCompute, ASchedulesCpusEventsChangeTheShare) {
  const Topology t =
      parse_profile_text(profile("{cpus: 1, schedule: [{at: 30s, event: cpus, cpus: 0.25}, "
                                 "{at: 60s, event: cpus, cpus: all}]}"),
                         "c.yaml");
  ASSERT_EQ(t.nodes[0].schedule.size(), 2u);
  EXPECT_EQ(t.nodes[0].schedule[0].kind, NodeEvent::Kind::kCpus);
  EXPECT_EQ(t.nodes[0].schedule[0].cpus, 0.25);
  EXPECT_FALSE(t.nodes[0].schedule[1].cpus);  // all: no limit
  const nlohmann::json j = plan_to_json(make_plan(t, false));
  const auto events = plan_from_json(j).nodes[0].events;
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].cpus, 0.25);
  EXPECT_EQ(events[1].kind, NodeEvent::Kind::kCpus);
  EXPECT_FALSE(events[1].cpus);
  const auto changes = node_changes(events);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].at_us, 30000000);
  EXPECT_EQ(changes[0].cpus, 0.25);

  EXPECT_EQ(errors_of("{schedule: [{at: 30s, event: cpus}]}"),
            std::vector<std::string>{"c.yaml:3:18: node 'a' schedule: a cpus event needs its "
                                     "share, e.g. {at: 60s, event: cpus, cpus: 0.25}"});
  EXPECT_EQ(errors_of("{schedule: [{at: 30s, event: cpus, cpus: lots}]}"),
            std::vector<std::string>{"c.yaml:3:47: node 'a' schedule: cpus: 'lots' is not a "
                                     "share from 0.01 to 1024, or all"});
  EXPECT_EQ(errors_of("{schedule: [{at: 30s, event: crash, cpus: 1}]}"),
            std::vector<std::string>{
                "c.yaml:3:48: node 'a' schedule: cpus: only a cpus event sets a share"});
}

// MLfabric's straggler model as a node's share: slowed in `chance` of the periods (over
// 20,000, within five standard deviations), to the share over `slowdown`, the same draws
// for the same seed and node, other draws for another node; refused when malformed.
TEST(NodeStraggler, SlowsTheShareInItsChanceOfThePeriods) {
  const Topology t = parse_profile_text(
      profile("{cpus: 1, straggler: {chance: 10%, slowdown: 4, every: 1s, seed: 3}}"), "c.yaml");
  ASSERT_TRUE(t.nodes[0].straggler);
  const StragglerModel m = *t.nodes[0].straggler;
  EXPECT_DOUBLE_EQ(m.chance, 0.1);
  EXPECT_DOUBLE_EQ(m.slowdown, 4);
  EXPECT_EQ(m.every_us, 1000000);
  EXPECT_EQ(m.seed, 3u);
  const Plan plan = make_plan(t, false);
  EXPECT_TRUE(plan.has_schedules);  // a timeline runs it
  EXPECT_EQ(plan_from_json(plan_to_json(plan)).nodes[0].straggler, m);

  constexpr int kPeriods = 20000;
  int slowed_periods = 0;
  for (int k = 1; k <= kPeriods; ++k) slowed_periods += straggles(m, 0, k) ? 1 : 0;
  const double sd = std::sqrt(kPeriods * 0.1 * 0.9);
  EXPECT_NEAR(slowed_periods, kPeriods * 0.1, 5 * sd);

  // Window by window as the timeline asks, the same as all at once; each change flips.
  bool a = false, b = false;
  auto all = straggler_changes(m, 1.0, 0, 0, 100000000, a);
  std::vector<NodeChange> windows;
  for (int64_t w = 0; w < 100000000; w += 10000000)
    for (const auto& c : straggler_changes(m, 1.0, 0, w, w + 10000000, b)) windows.push_back(c);
  ASSERT_EQ(all.size(), windows.size());
  ASSERT_FALSE(all.empty());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].at_us, windows[i].at_us);
    EXPECT_EQ(all[i].cpus, windows[i].cpus);
    EXPECT_EQ(all[i].cpus, i % 2 == 0 ? 0.25 : 1.0);  // slowed, then whole, and so on
    EXPECT_EQ(all[i].at_us % 1000000, 0);
  }
  bool c = false;
  EXPECT_NE(straggler_changes(m, 1.0, 1, 0, 100000000, c).front().at_us, all.front().at_us)
      << "another node straggles on its own";

  EXPECT_EQ(errors_of("{straggler: {chance: 10%, slowdown: 4, every: 1s}}"),
            std::vector<std::string>{"c.yaml:3:18: node 'a' straggler: needs the node's cpus: "
                                     "the share it is slowed from"});
  EXPECT_EQ(errors_of("{cpus: 1, straggler: {chance: 10%, slowdown: 0.5, every: 1s}}"),
            std::vector<std::string>{"c.yaml:3:51: node 'a' straggler: slowdown: '0.5' must be "
                                     "a factor above 1"});
  EXPECT_EQ(errors_of("{cpus: 1, straggler: {chance: 10%, slowdown: 4, every: 10ms}}"),
            std::vector<std::string>{
                "c.yaml:3:61: node 'a' straggler: every: at least 100ms (the CPU period)"});
}

class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("tb-cgroup-test-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::string path(const std::string& rel) const { return (root_ / rel).string(); }
  void put(const std::string& rel, const std::string& text) const {
    std::ofstream(path(rel)) << text;
  }
  std::filesystem::path root_;
};

TEST_F(CgroupTree, V1MakesAGroupPerHierarchyAndSetsTheLimits) {
  CgroupLayout l;
  l.version = CgroupLayout::Version::kV1;
  for (const char* c : {"cpu", "cpuacct", "memory", "cpuset"}) {
    std::filesystem::create_directories(path(c));
    l.v1_root[c] = path(c);
  }
  put("cpuset/cpuset.mems", "0\n");
  ComputeLimits lim;
  lim.cpus = 0.5;
  lim.cpuset = {1};
  lim.memory_bytes = 64ULL << 20;
  const auto dirs = node_cgroup_dirs(l, "tb-c-a", lim);
  EXPECT_EQ(dirs, (std::vector<std::string>{path("cpu/tb-c-a"), path("cpuacct/tb-c-a"),
                                            path("memory/tb-c-a"), path("cpuset/tb-c-a")}));
  create_node_cgroup(l, "tb-c-a", lim);
  EXPECT_EQ(read_text(path("cpu/tb-c-a/cpu.cfs_quota_us")), "50000");
  EXPECT_EQ(read_text(path("cpu/tb-c-a/cpu.cfs_period_us")), "100000");
  EXPECT_EQ(read_text(path("cpuset/tb-c-a/cpuset.cpus")), "1");
  EXPECT_EQ(read_text(path("cpuset/tb-c-a/cpuset.mems")), "0\n");
  EXPECT_EQ(read_text(path("memory/tb-c-a/memory.limit_in_bytes")), "67108864");
  // The same name again is someone else's: refused, and nothing of the first touched.
  EXPECT_THROW(create_node_cgroup(l, "tb-c-a", lim), std::system_error);
  EXPECT_EQ(read_text(path("cpu/tb-c-a/cpu.cfs_quota_us")), "50000");

  set_node_cpus(l, "tb-c-a", 1.25);
  EXPECT_EQ(read_text(path("cpu/tb-c-a/cpu.cfs_quota_us")), "125000");
  put("cpuacct/tb-c-a/cpuacct.usage", "2500000000\n");
  put("cpu/tb-c-a/cpu.stat", "nr_periods 40\nnr_throttled 10\nthrottled_time 750000000\n");
  put("memory/tb-c-a/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
  put("memory/tb-c-a/memory.max_usage_in_bytes", "1000\n");
  const NodeCgroupUsage u = read_node_cgroup(l, "tb-c-a");
  EXPECT_DOUBLE_EQ(u.cpu_s, 2.5);
  EXPECT_DOUBLE_EQ(u.throttled_s, 0.75);
  EXPECT_EQ(u.periods, 40u);
  EXPECT_EQ(u.throttled_periods, 10u);
  EXPECT_EQ(u.oom_kills, 2u);
  EXPECT_EQ(u.memory_peak_bytes, 1000u);
  ASSERT_TRUE(u.cpus);
  EXPECT_DOUBLE_EQ(*u.cpus, 1.25);
  set_node_cpus(l, "tb-c-a", std::nullopt);
  EXPECT_EQ(read_text(path("cpu/tb-c-a/cpu.cfs_quota_us")), "-1");
  EXPECT_FALSE(read_node_cgroup(l, "tb-c-a").cpus);

  for (const auto& d : dirs) put(d.substr(root_.string().size() + 1) + "/cgroup.procs", "");
  EXPECT_EQ(open_node_cgroup_procs(l, "tb-c-a").size(), 4u);
  for (const auto& d : dirs) remove_cgroup_dir(d);
  for (const auto& d : dirs) EXPECT_FALSE(std::filesystem::exists(d));
  remove_cgroup_dir(dirs[0]);                                // absent: fine
  EXPECT_TRUE(open_node_cgroup_procs(l, "tb-c-a").empty());  // no group: joins nothing
}

TEST_F(CgroupTree, V1CoMountedControllersShareOneDirectory) {
  CgroupLayout l;
  l.version = CgroupLayout::Version::kV1;
  std::filesystem::create_directories(path("cpu,cpuacct"));
  std::filesystem::create_directories(path("memory"));
  l.v1_root = {
      {"cpu", path("cpu,cpuacct")}, {"cpuacct", path("cpu,cpuacct")}, {"memory", path("memory")}};
  EXPECT_EQ(node_cgroup_dirs(l, "tb-c-a", {}),
            (std::vector<std::string>{path("cpu,cpuacct/tb-c-a"), path("memory/tb-c-a")}));
  ComputeLimits pinned;
  pinned.cpuset = {0};
  EXPECT_THROW(node_cgroup_dirs(l, "tb-c-a", pinned), std::runtime_error);  // no cpuset
}

TEST_F(CgroupTree, V2MakesOneGroupAndEnablesItsControllers) {
  CgroupLayout l;
  l.version = CgroupLayout::Version::kV2;
  l.v2_root = root_.string();
  put("cgroup.subtree_control", "memory\n");
  ComputeLimits lim;
  lim.cpus = 0.25;
  lim.memory_bytes = 32ULL << 20;
  EXPECT_EQ(node_cgroup_dirs(l, "tb-c-a", lim), std::vector<std::string>{path("tb-c-a")});
  create_node_cgroup(l, "tb-c-a", lim);
  // Only what was missing is written (a plain file keeps the last write).
  EXPECT_EQ(read_text(path("cgroup.subtree_control")), "+cpu");
  EXPECT_EQ(read_text(path("tb-c-a/cpu.max")), "25000 100000");
  EXPECT_EQ(read_text(path("tb-c-a/memory.max")), "33554432");
  EXPECT_FALSE(std::filesystem::exists(path("tb-c-a/cpuset.cpus")));
  put("tb-c-a/cpu.stat",
      "usage_usec 3000000\nuser_usec 1\nnr_periods 8\nnr_throttled 4\n"
      "throttled_usec 500000\n");
  put("tb-c-a/memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
  put("tb-c-a/memory.peak", "4096\n");
  const NodeCgroupUsage u = read_node_cgroup(l, "tb-c-a");
  EXPECT_DOUBLE_EQ(u.cpu_s, 3.0);
  EXPECT_DOUBLE_EQ(u.throttled_s, 0.5);
  EXPECT_EQ(u.throttled_periods, 4u);
  EXPECT_EQ(u.oom_kills, 1u);
  EXPECT_EQ(u.memory_peak_bytes, 4096u);
  ASSERT_TRUE(u.cpus);
  EXPECT_DOUBLE_EQ(*u.cpus, 0.25);
  set_node_cpus(l, "tb-c-a", std::nullopt);
  EXPECT_EQ(read_text(path("tb-c-a/cpu.max")), "max 100000");
  remove_cgroup_dir(path("tb-c-a"));
  EXPECT_FALSE(std::filesystem::exists(path("tb-c-a")));
}

}  // namespace
}  // namespace testbed
