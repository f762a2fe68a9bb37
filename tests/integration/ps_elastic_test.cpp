// An elastic asynchronous parameter server (docs/faults.md): on line4 with its shard on n1,
// a worker outside at the start joins and pulls the servers' model, another leaves after
// pushing its clock, a third crashes, and the run ends 0 with each change counted at the
// worker's clock. Under SSP the option is refused: its servers wait for every worker.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

class PsElastic : public Line4Lab {};

TEST_F(PsElastic, AWorkerJoinsAnotherLeavesAThirdCrashesAndTheRunGoesOn) {
  ASSERT_EQ(run_testbed({"node", "leave", kLab, "n4"}).status, 0);  // outside from the start
  BackgroundTrain trainer(
      guard_, kLab,
      {"--strategy", "async", "--ps-elastic", "on", "--servers", "n1", "--model", "logreg",
       "--iterations", "300", "--compute-ms", "20", "--json"},
      "/tmp/tbt-ps-elastic.log");
  ASSERT_TRUE(trainer.wait_for("\"iteration\":20,", 60)) << trainer.output();
  EXPECT_EQ(run_testbed({"node", "join", kLab, "n4"}).status, 0);
  ASSERT_TRUE(trainer.wait_for("\"iteration\":60,", 60)) << trainer.output();
  EXPECT_EQ(run_testbed({"node", "leave", kLab, "n3"}).status, 0);
  ASSERT_TRUE(trainer.wait_for("\"iteration\":100,", 60)) << trainer.output();
  EXPECT_EQ(run_testbed({"node", "crash", kLab, "n2"}).status, 0);
  const int status = trainer.wait();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << trainer.output();
  const auto s = summary_of(trainer.output());
  const auto& m = s["membership"];
  ASSERT_EQ(m["changes"].size(), 3u) << m;
  EXPECT_EQ(m["changes"][0]["change"], "join");
  EXPECT_EQ(m["changes"][0]["node"], "n4");
  EXPECT_EQ(m["changes"][0]["clock"], 0) << "it had computed nothing: it starts at its clock 0";
  EXPECT_EQ(m["changes"][1]["change"], "leave");
  EXPECT_EQ(m["changes"][1]["node"], "n3");
  EXPECT_GE(m["changes"][1]["clock"].get<int>(), 60);
  EXPECT_EQ(m["changes"][2]["change"], "crash");
  EXPECT_EQ(m["changes"][2]["node"], "n2");
  EXPECT_EQ(m["members_at_end"], nlohmann::json({"n1", "n4"}));
  EXPECT_EQ(m["members_over_time"][0]["members"], 3);
  // n1 ran its 300 clocks; the joiner was stopped once n1 had, short of its own 300.
  EXPECT_EQ(s["workers"]["n1"]["clocks"], 300);
  EXPECT_GT(s["workers"]["n4"]["clocks"].get<int>(), 0);
  EXPECT_LT(s["workers"]["n4"]["clocks"].get<int>(), 300);
  // The leaver's record came at the end (told to stop outside, it sent it), and the crashed
  // worker's compute counts as its clocks reported it.
  EXPECT_GE(s["workers"]["n3"]["clocks"].get<int>(), 60);
  EXPECT_GT(s["compute_utilization"]["per_worker"]["n2"].get<double>(), 0.0);
  EXPECT_GE(m["changes"][2]["clock"].get<int>(), 100);
  // Over its time in, the joiner computed a larger share than over the whole run.
  const double n4_wall = s["compute_utilization"]["per_worker"]["n4"].get<double>();
  const double n4_in =
      m["compute_utilization_of_member_time"]["per_worker"]["n4"]["utilization"].get<double>();
  EXPECT_GT(n4_in, n4_wall);
  EXPECT_LT(s["final_loss"].get<double>(), s["loss_curve"][0][1].get<double>());
  EXPECT_TRUE(agents_of(kLab).empty());

  // The same option under SSP: its servers wait for every worker's clock.
  expect_train_refused(kLab, {"--strategy", "ssp", "--ps-elastic", "on"}, "ps-elastic");
}

}  // namespace
}  // namespace testbed::it
