#include "controller/lab/lab_state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/wait.h>
#include <filesystem>
#include <fstream>

#include "controller/lab/teardown.h"
#include "netns/fake_kernel.h"

namespace testbed {
namespace {

class LabStateTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("tb-state-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  std::filesystem::path root_;
};

TEST_F(LabStateTest, SaveLoadRoundTrip) {
  LabStore store(root_);
  LabState s;
  s.lab = "x";
  s.phase = "up";
  s.source = "/p/x.yaml";
  s.controller_pid = 42;
  s.namespaces = {{"tb-x-a", 4026532001}, {"tb-x-b", 0}};
  s.processes = {{123, 456, "a", {"iperf3", "-s"}}};
  s.plan.lab = "x";
  store.save(s);
  const LabState back = store.load("x");
  EXPECT_EQ(back.lab, "x");
  EXPECT_EQ(back.phase, "up");
  EXPECT_EQ(back.namespaces.size(), 2u);
  EXPECT_EQ(back.namespaces[0].inode, 4026532001u);
  EXPECT_EQ(back.processes.at(0).argv, (std::vector<std::string>{"iperf3", "-s"}));
  EXPECT_EQ(store.resolve(""), "x");
  EXPECT_THROW(store.resolve("y"), std::runtime_error);
}

TEST_F(LabStateTest, JournalledRecordsAreLoadedAndFoldedIntoTheNextSave) {
  LabStore store(root_);
  LabState s;
  s.lab = "x";
  s.phase = "applying";
  store.save(s);
  store.record_namespace("x", {"tb-x-a", 0});
  store.record_namespace("x", {"tb-x-a", 77});  // its inode, once made: replaces the first
  store.record_process("x", {123, 456, "a", {"testbed-delayline"}});
  store.record_process("x", {123, 456, "a", {"testbed-delayline"}});  // replayed twice: once
  LabState back = store.load("x");
  ASSERT_EQ(back.namespaces.size(), 1u);
  EXPECT_EQ(back.namespaces[0].inode, 77u);
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_EQ(back.processes[0].pid, 123);
  // A record cut short by a crash mid-write is skipped, the rest kept.
  { std::ofstream(store.journal_path("x"), std::ios::app) << "{\"namespace\": {\"na"; }
  EXPECT_EQ(store.load("x").namespaces.size(), 1u);
  // A save folds the journal in and removes it; what it held stays.
  back.phase = "up";
  store.save(back);
  EXPECT_FALSE(std::filesystem::exists(store.journal_path("x")));
  const LabState saved = store.load("x");
  EXPECT_EQ(saved.phase, "up");
  EXPECT_EQ(saved.namespaces.size(), 1u);
  EXPECT_EQ(saved.processes.size(), 1u);
}

TEST_F(LabStateTest, LockIsExclusive) {
  LabStore store(root_);
  auto first = store.lock("x", false);
  ASSERT_TRUE(first);
  // flock locks belong to the open file description: a second open in the same process
  // conflicts just as another process would.
  EXPECT_FALSE(store.lock("x", false));
  first.reset();
  EXPECT_TRUE(store.lock("x", false));
}

TEST(Teardown, RemovesOnlyRecordedNamespacesWithTheirIdentity) {
  FakeKernel kernel;
  const uint64_t mine = kernel.create_namespace("tb-x-a");
  kernel.create_namespace("tb-x-b");           // recorded with a different identity below
  kernel.create_namespace("tb-x-intent");      // recorded before creation (inode 0)
  kernel.create_namespace("tb-someone-else");  // not recorded at all
  LabState s;
  s.namespaces = {{"tb-x-a", mine}, {"tb-x-b", 1}, {"tb-x-intent", 0}, {"tb-x-gone", 7}};
  const TeardownReport r = teardown_lab(s, kernel);
  EXPECT_EQ(r.namespaces_deleted, 2);
  EXPECT_FALSE(kernel.namespace_exists("tb-x-a"));
  EXPECT_FALSE(kernel.namespace_exists("tb-x-intent"));
  EXPECT_TRUE(kernel.namespace_exists("tb-x-b"));
  EXPECT_TRUE(kernel.namespace_exists("tb-someone-else"));
  ASSERT_EQ(r.skipped.size(), 1u);
}

TEST(Teardown, EndsOnlyProcessesWhoseStartTimeMatches) {
  const pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  FakeKernel kernel;
  LabState s;
  // A record with the right pid but a wrong start time is a reused pid: left alone.
  s.processes = {{child, process_start_time(child) + 1, "a", {"pause"}}};
  EXPECT_EQ(teardown_lab(s, kernel).processes_ended, 0);
  EXPECT_NE(process_start_time(child), 0u);
  s.processes[0].start_time = process_start_time(child);
  EXPECT_EQ(teardown_lab(s, kernel).processes_ended, 1);
  waitpid(child, nullptr, 0);  // teardown may have reaped it already: it is our child
  EXPECT_EQ(process_start_time(child), 0u);
}

}  // namespace
}  // namespace testbed
