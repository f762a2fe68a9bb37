// Jobs side by side, the pure parts (docs/jobs.md): each slot's DSCP code point in RFC
// 2474's local-use pool, the counters read back from iptables' text per device and slot,
// slots taken lowest first, a job's record both ways, where its control group lives, and
// its summary's arithmetic.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "controller/lab/teardown.h"
#include "controller/observe/job_accounting.h"
#include "netns/fake_job_marks.h"
#include "netns/job_cgroup.h"
#include "netns/job_marks.h"

namespace testbed {
namespace {

TEST(JobAccounting, SlotsMapToPoolTwoCodePointsEachItsOwn) {
  std::set<int> seen;
  for (int slot = 1; slot <= kMaxJobs; ++slot) {
    const int d = job_dscp(slot);
    EXPECT_EQ(d & 3, 3) << "pool 2 is xxxx11";
    EXPECT_LT(d, 64);
    seen.insert(d);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kMaxJobs));
  EXPECT_EQ(job_dscp(1), 3);
  EXPECT_EQ(job_dscp(3), 0x0b);
  EXPECT_EQ(job_dscp(16), 63);
}

TEST(JobAccounting, CountersAreReadPerDeviceAndSlotBesideEachDevicesTotal) {
  const std::string text =
      "-N TBJC\n"
      "-A TBJC -i tb1 -c 230 10497689\n"  // everything over tb1
      "-A TBJC -i tb2 -c 7 700\n"
      "-A TBJC -i tb1 -m dscp --dscp 0x0b -c 215 10496589 -j RETURN\n"
      "-A TBJC -i tb2 -m dscp --dscp 0x0b -c 0 0 -j RETURN\n"
      "-A TBJC -i tb1 -m dscp --dscp 0x03 -c 5 500 -j RETURN\n"
      "-A TBJC -i tb2 -m dscp --dscp 0x03 -c 7 700 -j RETURN\n"
      "-A TBJC -i tb1 -m dscp --dscp 0x2e -c 1 100 -j RETURN\n"  // EF: no job's
      "-A TBXT -i tb1 -c 9 999 -j RETURN\n";                     // another chain
  const auto a = parse_job_counters(text);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.at("tb1").bytes, 10497689u);
  EXPECT_EQ(a.at("tb1").packets, 230u);
  EXPECT_EQ(a.at("tb1").slot_bytes.at(3), 10496589u);
  EXPECT_EQ(a.at("tb1").slot_packets.at(3), 215u);
  EXPECT_EQ(a.at("tb1").slot_bytes.at(1), 500u);
  EXPECT_EQ(a.at("tb1").slot_bytes.size(), 2u);
  EXPECT_EQ(a.at("tb2").slot_bytes.at(1), 700u);
  EXPECT_EQ(a.at("tb2").bytes, 700u);
}

TEST(JobAccounting, TheLowestFreeSlotIsTakenAndNoneWhenAllAre) {
  EXPECT_EQ(free_slot({}), 1);
  EXPECT_EQ(free_slot({1, 2, 4}), 3);
  std::vector<int> all;
  for (int s = 1; s <= kMaxJobs; ++s) all.push_back(s);
  EXPECT_EQ(free_slot(all), std::nullopt);
}

TEST(JobAccounting, ARecordRoundTripsAndAFieldMissingOrOutOfRangeIsNamed) {
  JobRecord r{2, "launch", "bulk", 1234, 987654, {"tb-x-a", "tb-x-b"}, {"/g/a", "/g/b"}};
  const JobRecord back = job_record_from_json(to_json(r));
  EXPECT_EQ(back.slot, 2);
  EXPECT_EQ(back.kind, "launch");
  EXPECT_EQ(back.label, "bulk");
  EXPECT_EQ(back.pid, 1234);
  EXPECT_EQ(back.start_time, 987654u);
  EXPECT_EQ(back.namespaces, r.namespaces);
  EXPECT_EQ(back.groups, r.groups);
  auto j = to_json(r);
  j.erase("groups");
  try {
    job_record_from_json(j);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'groups'"), std::string::npos) << e.what();
  }
  j = to_json(r);
  j["slot"] = 17;
  EXPECT_THROW(job_record_from_json(j), std::runtime_error);
}

TEST(JobAccounting, AJobsGroupIsTheNodesChildOnV2AndBesideItOtherwise) {
  const auto nested = job_group("/sys/fs/cgroup", "tb-lab-a", 3, true);
  EXPECT_EQ(nested.path, "/tb-lab-a/tbj3");
  EXPECT_EQ(nested.dir, "/sys/fs/cgroup/tb-lab-a/tbj3");
  const auto beside = job_group("/sys/fs/cgroup/unified", "tb-lab-a", 3, false);
  EXPECT_EQ(beside.path, "/tb-lab-a-tbj3");
  EXPECT_EQ(beside.dir, "/sys/fs/cgroup/unified/tb-lab-a-tbj3");
}

TEST(JobAccounting, TheSummaryGivesEachDirectionsBytesBesideTheLinksInTheJobsTime) {
  JobRecord r{2, "train", "bsp", 1, 1, {}, {}};
  std::map<std::string, JobDirectionCounts> counts;
  counts["a>b"] = {600, 1000, 2000};  // the link delivered 1000 in the job's time
  counts["b>a"] = {0, 50, 50};        // nothing: left out
  counts["b>c"] = {100, 0, 400};
  const auto s = job_traffic_summary(r, counts);
  EXPECT_EQ(s["slot"], 2);
  EXPECT_EQ(s["dscp"], 7);
  EXPECT_EQ(s["wan_bytes"], 700u);
  EXPECT_EQ(s["link_bytes"], 1400u);
  EXPECT_DOUBLE_EQ(s["share"].get<double>(), 0.5);
  EXPECT_EQ(s["directions"].size(), 2u);
  EXPECT_DOUBLE_EQ(s["directions"]["a>b"]["share"].get<double>(), 0.6);
  EXPECT_EQ(s["directions"]["b>c"]["link_bytes"], 400u);
  EXPECT_FALSE(s["directions"].contains("b>a"));
}

}  // namespace
}  // namespace testbed

namespace testbed {
namespace {

TEST(JobAccounting, TheLinkEndsReceivedIpBytesLeaveOtherDevicesAndEthernetHeadersOut) {
  const std::string text =
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets\n"
      "    lo:    1000      10    0    0    0     0          0         0     1000      10\n"
      "tb-ab1: 10500201     222    0    0    0     0          0         0     7199     103\n"
      "  tb-c:     140      10    0    0    0     0          0         0        0       0\n"
      "tbifb1: 10500201     222    0    0    0     0          0         0        0       0\n";
  EXPECT_EQ(received_ip_bytes_from(text, {"tb-ab1", "tb-c"}), 10500201u - 14 * 222 + 0);
  EXPECT_EQ(received_ip_bytes_from(text, {}), 0u);
}

}  // namespace
}  // namespace testbed

namespace testbed {
namespace {

namespace fs = std::filesystem;

// A lab "x" of nodes a and b over a store in a temporary directory, and a directory
// standing for the cgroup v2 mount, where b has a group of its own (a v2 node group).
class JobAccountingRun : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("tb-jobs-test-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "cgroup" / "tb-x-b");
    fs::create_directories(store_.dir("x"));
    LabState s;
    s.lab = "x";
    s.phase = "up";
    s.cgroups = {(root_ / "cgroup" / "tb-x-b").string()};  // the node's own
    store_.save(s);
    Plan plan;
    plan.lab = "x";
    plan.nodes = {{.name = "a", .ns = "tb-x-a"}, {.name = "b", .ns = "tb-x-b"}};
    store_.save_plan("x", plan);
    LiveDirection ab, ba;
    ab.from = ba.to = "a";
    ab.to = ba.from = "b";
    ab.rx_ns = "tb-x-b";
    ab.rx_dev = "tb1b";
    ba.rx_ns = "tb-x-a";
    ba.rx_dev = "tb1a";
    directions_ = {ab, ba};
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string cgroup() const { return (root_ / "cgroup").string(); }
  std::unique_ptr<JobAccounting> start(const std::string& kind, const std::string& label) {
    return std::make_unique<JobAccounting>(store_, "x", directions_, kind, label, marks_, cgroup());
  }
  fs::path root_;
  LabStore store_{
      (fs::temp_directory_path() / ("tb-jobs-test-" + std::to_string(getpid())) / "run").string()};
  std::vector<LiveDirection> directions_;
  FakeJobMarks marks_;
};

TEST_F(JobAccountingRun, JobsTakeSlotsRecordTheirGroupsFirstCountApartAndUndoAll) {
  auto train = start("train", "bsp");
  auto launch = start("launch", "ddp");
  EXPECT_EQ(train->slot(), 1);
  EXPECT_EQ(launch->slot(), 2);
  // Beside a's name (no v2 group of a's), under b's own group.
  EXPECT_TRUE(fs::is_directory(cgroup() + "/tb-x-a-tbj1"));
  EXPECT_TRUE(fs::is_directory(cgroup() + "/tb-x-b/tbj2"));
  EXPECT_EQ(marks_.rules["tb-x-a"][1].path, "/tb-x-a-tbj1");
  EXPECT_EQ(marks_.rules["tb-x-b"][2].path, "/tb-x-b/tbj2");
  EXPECT_EQ(marks_.rules["tb-x-b"][2].devs, std::vector<std::string>{"tb1b"});
  // Recorded: the slots' files, and the groups ahead of the node's own (removed first).
  EXPECT_TRUE(fs::exists(store_.dir("x") + "/jobs/1.json"));
  const auto cgroups = store_.load("x").cgroups;
  ASSERT_EQ(cgroups.size(), 5u);
  EXPECT_EQ(cgroups.back(), cgroup() + "/tb-x-b");
  EXPECT_EQ(running_jobs(store_.dir("x")).size(), 2u);
  // A second train is refused, changing nothing.
  EXPECT_THROW(start("train", "ssp"), JobRefused);
  EXPECT_EQ(store_.load("x").cgroups.size(), 5u);
  EXPECT_FALSE(fs::exists(store_.dir("x") + "/jobs/3.json"));

  marks_.arrive("tb-x-b", "tb1b", 1, 1000);  // the train's
  marks_.arrive("tb-x-b", "tb1b", 2, 300);   // the launch's
  marks_.arrive("tb-x-b", "tb1b", 0, 50);    // nobody's
  const auto t = train->summary();
  EXPECT_EQ(t["wan_bytes"], 1000u);
  EXPECT_EQ(t["link_bytes"], 1350u);
  EXPECT_EQ(t["directions"]["a>b"]["bytes"], 1000u);
  EXPECT_EQ(launch->summary()["wan_bytes"], 300u);

  train.reset();  // its counts go with it; the link's total stays
  EXPECT_FALSE(fs::exists(cgroup() + "/tb-x-a-tbj1"));
  EXPECT_TRUE(marks_.rules["tb-x-a"].count(1) == 0 && marks_.rules["tb-x-b"].count(1) == 0);
  EXPECT_FALSE(fs::exists(store_.dir("x") + "/jobs/1.json"));
  EXPECT_EQ(launch->summary()["link_bytes"], 1350u);
  launch.reset();
  EXPECT_EQ(store_.load("x").cgroups, std::vector<std::string>{cgroup() + "/tb-x-b"});
  EXPECT_TRUE(running_jobs(store_.dir("x")).empty());
}

TEST_F(JobAccountingRun, ADeadOwnersSlotIsTakenBackWithItsGroupsAndRules) {
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const JobRecord gone{1, "launch", "old", dead, 12345, {"tb-x-a"}, {cgroup() + "/tb-x-a-tbj1"}};
  fs::create_directories(store_.dir("x") + "/jobs");
  std::ofstream(store_.dir("x") + "/jobs/1.json") << to_json(gone).dump();
  fs::create_directories(cgroup() + "/tb-x-a-tbj1");
  marks_.rules["tb-x-a"][1] = {{"tb1a"}, "/tb-x-a-tbj1"};
  auto job = start("launch", "new");
  EXPECT_EQ(job->slot(), 1);
  const auto record =
      job_record_from_json(nlohmann::json::parse(std::ifstream(store_.dir("x") + "/jobs/1.json")));
  EXPECT_EQ(record.label, "new");
  EXPECT_EQ(record.pid, getpid());
  EXPECT_EQ(record.start_time, process_start_time(getpid()));
}

TEST_F(JobAccountingRun, CleanTakesBackADeadJobsSlotAndItsGroupsInTheLabsState) {
  const pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  const std::string group = cgroup() + "/tb-x-b/tbj2";
  const JobRecord gone{2, "train", "bsp", dead, 12345, {"tb-x-b"}, {group}};
  fs::create_directories(store_.dir("x") + "/jobs");
  std::ofstream(store_.dir("x") + "/jobs/2.json") << to_json(gone).dump();
  fs::create_directories(group);
  marks_.rules["tb-x-b"][2] = {{"tb1b"}, "/tb-x-b/tbj2"};
  LabState state = store_.load("x");
  state.cgroups.insert(state.cgroups.begin(), group);
  // A job's group does not make the lab's nodes look as if they had compute of their own.
  EXPECT_TRUE(any_node_group(state.cgroups));
  EXPECT_FALSE(any_node_group({group}));
  EXPECT_EQ(take_back_dead_jobs(store_.dir("x"), state, marks_), 1);
  EXPECT_EQ(state.cgroups, std::vector<std::string>{cgroup() + "/tb-x-b"});
  EXPECT_FALSE(fs::exists(group));
  EXPECT_TRUE(marks_.rules["tb-x-b"].empty());
  EXPECT_FALSE(fs::exists(store_.dir("x") + "/jobs/2.json"));
  EXPECT_EQ(take_back_dead_jobs(store_.dir("x"), state, marks_), 0);
}

TEST(JobAccounting, AJobsGroupIsToldFromANodesByItsName) {
  EXPECT_TRUE(is_job_group("/sys/fs/cgroup/tb-lab-a/tbj3"));
  EXPECT_TRUE(is_job_group("/sys/fs/cgroup/unified/tb-lab-a-tbj16"));
  EXPECT_FALSE(is_job_group("/sys/fs/cgroup/cpu/tb-lab-a"));
  EXPECT_FALSE(is_job_group("/sys/fs/cgroup/tb-lab-tbjx"));  // a node named "tbjx"
  EXPECT_FALSE(is_job_group("/sys/fs/cgroup/tb-lab-tbj"));
  EXPECT_FALSE(any_node_group({}));
}

TEST_F(JobAccountingRun, AFailureHalfWayUndoesEverythingItMade) {
  marks_.fail_in = "tb-x-b";
  EXPECT_THROW(start("train", "bsp"), KernelError);
  EXPECT_FALSE(fs::exists(cgroup() + "/tb-x-a-tbj1"));
  EXPECT_FALSE(fs::exists(cgroup() + "/tb-x-b/tbj1"));
  EXPECT_TRUE(marks_.rules["tb-x-a"].empty());
  EXPECT_FALSE(fs::exists(store_.dir("x") + "/jobs/1.json"));
  EXPECT_EQ(store_.load("x").cgroups, std::vector<std::string>{cgroup() + "/tb-x-b"});
}

}  // namespace
}  // namespace testbed
