// The testbed leaves the host as it found it: after `down`, after a controller killed
// mid-way (then `clean`), and after a failure half-way (rollback). It never touches a
// namespace it did not create.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "host_snapshot.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

int lab_namespaces(const std::string& lab) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/run/netns")) {
    n += e.path().filename().string().rfind("tb-" + lab + "-", 0) == 0;
  }
  return n;
}

TEST(Cleanup, DownLeavesNoNamespaceLinkRouteOrProcess) {
  REQUIRE_ROOT();
  const HostSnapshot before = take_host_snapshot();
  LabGuard guard("tbt-line4");
  ASSERT_EQ(run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/line4.yaml"}).status, 0);
  const pid_t sleeper = spawn_testbed({"exec", "--lab", "tbt-line4", "n2", "--", "sleep", "1000"});
  guard.own(sleeper);
  // The exec records itself before it runs the command: wait until the lab's state holds
  // its pid (polled, not a guessed sleep: a loaded machine runs the exec late).
  const auto recorded = [&] {
    const auto state = lab_state_json("tbt-line4");
    for (const auto& p : state.value("processes", nlohmann::json::array()))
      if (p.value("pid", 0) == sleeper) return true;
    return false;
  };
  for (int i = 0; i < 1000 && !recorded(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(recorded()) << "exec never recorded its process";
  EXPECT_EQ(lab_namespaces("tbt-line4"), 4);
  const Result down = run_testbed({"down", "tbt-line4"});
  EXPECT_EQ(down.status, 0) << down.output;
  EXPECT_EQ(lab_namespaces("tbt-line4"), 0);
  EXPECT_FALSE(std::filesystem::exists("/run/testbed/tbt-line4"));
  // `down` waits for what it signals to exit; the child is ours to reap, at once or soon.
  pid_t reaped = 0;
  for (int i = 0; i < 500 && reaped == 0; ++i) {
    reaped = waitpid(sleeper, nullptr, WNOHANG);
    if (reaped == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(reaped, sleeper) << "the recorded process survived down";
  EXPECT_EQ(take_host_snapshot(), before);
}

TEST(Cleanup, SigkillDuringUpThenCleanRestoresTheHost) {
  REQUIRE_ROOT();
  const HostSnapshot before = take_host_snapshot();
  LabGuard guard("tbt-kill");
  // Step 40 of internet2's plan: all 9 namespaces exist and some links are made. The
  // controller stops itself there (a fault-injection point), and we kill it for real.
  const pid_t up = spawn_testbed({"up", profile_as_lab("internet2.yaml", "tbt-kill")},
                                 {{"TESTBED_FAULT_STOP_AT_STEP", "40"}});
  int status = 0;
  ASSERT_EQ(waitpid(up, &status, WUNTRACED), up);
  ASSERT_TRUE(WIFSTOPPED(status)) << "up finished before the stop point";
  kill(up, SIGKILL);
  waitpid(up, &status, 0);
  EXPECT_EQ(lab_namespaces("tbt-kill"), 9);

  const Result clean = run_testbed({"clean"});
  EXPECT_EQ(clean.status, 0) << clean.output;
  EXPECT_EQ(lab_namespaces("tbt-kill"), 0);
  EXPECT_FALSE(std::filesystem::exists("/run/testbed/tbt-kill"));
  EXPECT_EQ(take_host_snapshot(), before);
}

TEST(Cleanup, FailureHalfWayRollsBack) {
  REQUIRE_ROOT();
  const HostSnapshot before = take_host_snapshot();
  LabGuard guard("tbt-fail");
  const Result up = run_testbed({"up", profile_as_lab("internet2.yaml", "tbt-fail")},
                                {{"TESTBED_FAULT_FAIL_AT_STEP", "120"}});
  EXPECT_EQ(up.status, 1);
  EXPECT_NE(up.output.find("injected failure"), std::string::npos) << up.output;
  EXPECT_NE(up.output.find("rolled back"), std::string::npos) << up.output;
  EXPECT_EQ(lab_namespaces("tbt-fail"), 0);
  EXPECT_FALSE(std::filesystem::exists("/run/testbed/tbt-fail"));
  EXPECT_EQ(take_host_snapshot(), before);
}

TEST(Cleanup, NeverTouchesANamespaceItDidNotCreate) {
  REQUIRE_ROOT();
  // Someone else's namespace that happens to have the name the lab would use.
  ASSERT_EQ(system("ip netns add tb-tbt-pair-right"), 0);
  const Result up = run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/pair.yaml"});
  EXPECT_EQ(up.status, 1);
  EXPECT_NE(up.output.find("not recorded"), std::string::npos) << up.output;
  EXPECT_EQ(run_testbed({"clean"}).status, 0);
  EXPECT_TRUE(std::filesystem::exists("/run/netns/tb-tbt-pair-right"));
  EXPECT_EQ(lab_namespaces("tbt-pair"), 1);
  system("ip netns delete tb-tbt-pair-right");
}

}  // namespace
}  // namespace testbed::it
