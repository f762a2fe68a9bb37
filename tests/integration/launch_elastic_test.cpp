// Your own elastic job under churn (docs/launch.md): a PyTorch DiLoCo job
// (examples/pytorch-diloco-elastic) through `testbed launch` on four data centers. A node
// outside at the launch joins mid-run and is sent the shared model; another is told to
// leave, drains its outer step and exits; the job ends 0 and reports its compute
// utilization over the wall time and over each node's time in.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <string>

#include "host_snapshot.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

const std::string kPython = "/usr/bin/python3";
const std::string kLab = "tbt-line4";

TEST(LaunchElastic, ANodeJoinsWithTheSharedModelAnotherLeavesAndTheJobEndsZero) {
  REQUIRE_ROOT();
  ASSERT_EQ(shell_output(kPython + " -c 'import torch.distributed as d;"
                                   " print(d.is_gloo_available())' 2>/dev/null"),
            "True\n")
      << kPython << " cannot import torch: run scripts/setup.sh";
  const HostSnapshot before = take_host_snapshot();
  {
    LabGuard guard(kLab);
    ASSERT_EQ(run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/line4.yaml", "--prometheus", "off"})
                  .status,
              0);
    ASSERT_EQ(run_testbed({"node", "leave", kLab, "n4"}).status, 0);  // outside at the launch
    BackgroundTrain job(
        guard, "launch", kLab,
        {"--json", "--", kPython, TESTBED_EXAMPLES_DIR + "/pytorch-diloco-elastic/train.py",
         "--steps", "400", "--inner-steps", "10", "--compute-ms", "40", "--hidden", "32"},
        "/tmp/tbt-launch-elastic.log");
    ASSERT_TRUE(job.wait_for("outer step 1:", 120)) << job.output();
    EXPECT_EQ(run_testbed({"node", "join", kLab, "n4"}).status, 0);
    // n4 (rank 3) is in an outer step: its python started, took the model, all-reduced.
    ASSERT_TRUE(job.wait_for("members [0, 1, 2, 3]", 120)) << job.output();
    EXPECT_EQ(run_testbed({"node", "leave", kLab, "n2"}).status, 0);
    ASSERT_TRUE(job.wait_for("[n2] left (its node's leave)", 120)) << job.output();
    const int status = job.wait();
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << job.output();
    const auto s = summary_of(job.output());
    ASSERT_TRUE(s.is_object()) << job.output();
    EXPECT_EQ(s["status"], "completed");
    const auto& n2 = s["nodes"][1];
    const auto& n4 = s["nodes"][3];
    EXPECT_EQ(n2["leaves"], 1);
    EXPECT_TRUE(n2["ended_outside"].get<bool>());
    EXPECT_EQ(n2["exit_status"], 0) << "a drained rank exits as it finished";
    EXPECT_EQ(n4["joins"], 1);
    EXPECT_FALSE(n4["ended_outside"].get<bool>());
    // The catch-up: the shared model and its outer momentum, sent once, to n4.
    EXPECT_GT(s["nodes"][0]["gauges"].value("catch_up_bytes", 0.0), 0.0);
    // Utilization: n4 was in for part of the run only, so over its time in it reads more
    // than over the wall time; every node computed something.
    ASSERT_TRUE(s.contains("compute_utilization")) << s.dump();
    const double n4_wall = s["compute_utilization"]["per_worker"]["n4"].get<double>();
    const double n4_in =
        s["compute_utilization_of_member_time"]["per_worker"]["n4"]["utilization"].get<double>();
    EXPECT_GT(n4_wall, 0.0);
    EXPECT_GT(n4_in, n4_wall);
    EXPECT_LT(n4["time_in_s"].get<double>(), s["wall_s"].get<double>());
    ASSERT_FALSE(s["final_loss"].is_null());
    EXPECT_LT(s["final_loss"].get<double>(), 1.0);  // it trained (the loss starts near 1)
  }
  EXPECT_EQ(take_host_snapshot(), before);
}

}  // namespace
}  // namespace testbed::it
