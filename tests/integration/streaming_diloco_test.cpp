// Streaming DiLoCo on a real lab (docs/streaming-diloco.md): with one fragment, no overlap
// and no mixing it trains exactly as DiLoCo; with two fragments each data center takes an
// outer step per fragment's sync; its pseudo-gradients in 4-bit floats move about an
// eighth of fp32's bytes; an overlap the schedule cannot hold is refused by its field;
// elastic, its data centers join, leave and crash and the run goes on.
#include <gtest/gtest.h>

#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

class StreamingDiloco : public Line4Lab {
 protected:
  nlohmann::json train(std::vector<std::string> args) { return train_json(kLab, std::move(args)); }
};

TEST_F(StreamingDiloco, OneFragmentIsDilocoAndFourBitsMoveAnEighthOfTheBytes) {
  const std::vector<std::string> job = {"--iterations", "12", "--diloco-h", "4"};
  auto args = [&](std::vector<std::string> more) {
    more.insert(more.begin(), job.begin(), job.end());
    return more;
  };
  const auto diloco = train(args({"--model", "logreg", "--strategy", "diloco"}));
  const auto one =
      train(args({"--model", "logreg", "--strategy", "streaming-diloco", "--streaming-fragments",
                  "1", "--streaming-overlap", "0", "--streaming-mixing", "0"}));
  ASSERT_FALSE(diloco.is_null());
  ASSERT_FALSE(one.is_null());
  EXPECT_EQ(one["runtime"], "streaming-diloco");
  EXPECT_EQ(one["policy"]["fragments"], 1);
  // The same arithmetic, in the same order: equal to the last digit.
  EXPECT_EQ(one["final_loss"], diloco["final_loss"]);
  EXPECT_EQ(one["diloco"]["outer_steps"], 3) << one["diloco"];

  // A dense model large enough that the pseudo-gradients outweigh the connections' own
  // traffic; two fragments synchronized two steps apart: six fragment outer steps.
  const std::vector<std::string> dense = {"--model", "resnet50",   "--scale",
                                          "0.002",   "--strategy", "streaming-diloco"};
  auto with = [&](const std::string& wire) {
    auto a = args(dense);
    a.insert(a.end(), {"--streaming-wire", wire});
    return train(a);
  };
  const auto fp32 = with("fp32");
  const auto fp4 = with("fp4");
  ASSERT_FALSE(fp32.is_null());
  ASSERT_FALSE(fp4.is_null());
  EXPECT_EQ(fp32["diloco"]["outer_steps"], 6) << fp32["diloco"];
  EXPECT_EQ(fp4["diloco"]["frames_dropped"], 0) << fp4["diloco"];
  // Half a byte a value against four, plus each message's head and the connections' own.
  const double ratio = fp4["wan_bytes"].get<double>() / fp32["wan_bytes"].get<double>();
  EXPECT_LT(ratio, 0.2) << fp4["wan_bytes"] << " against " << fp32["wan_bytes"];
  EXPECT_GT(ratio, 0.1) << fp4["wan_bytes"] << " against " << fp32["wan_bytes"];
  // Compute utilization is reported for each data center.
  EXPECT_EQ(fp4["compute_utilization"]["per_worker"].size(), 4u);
  EXPECT_GT(fp4["compute_utilization"]["mean"].get<double>(), 0);
  EXPECT_TRUE(agents_of(kLab).empty());
}

TEST_F(StreamingDiloco, AnOverlapTheScheduleCannotHoldIsRefusedByItsField) {
  // H = 4 over 2 fragments: a sync every 2 steps, so an overlap of 2 would put two
  // fragments in flight at once.
  const Result r =
      run_testbed({"train", kLab, "--model", "logreg", "--iterations", "4", "--strategy",
                   "streaming-diloco", "--diloco-h", "4", "--streaming-overlap", "2"});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("setup.policy.overlap is 2, outside [0, 1]"), std::string::npos)
      << r.output;
  EXPECT_TRUE(agents_of(kLab).empty());
}

// Elastic Streaming DiLoCo (docs/streaming-diloco.md#elastic-membership): each fragment's
// round reforms over who is in. n4 starts outside and joins, taking the shared model and
// both fragments' momentum once the fragment in flight at its commit is applied; n2
// leaves, drained at a fragment's commit; n3 crashes. The run goes on to its last sync.
TEST_F(StreamingDiloco, ElasticFragmentsRoundsReformOverWhoIsInAndAJoinerCatchesUp) {
  const auto s = line4_join_leave_crash(
      guard_,
      {"--strategy", "streaming-diloco", "--diloco-elastic", "on", "--model", "logreg",
       "--iterations", "400", "--compute-ms", "20", "--diloco-h", "10", "--json"},
      "/tmp/tbt-streaming-elastic.log");
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["policy"]["elastic"], "on");
  const auto& m = s["diloco"]["membership"];
  ASSERT_EQ(m["changes"].size(), 3u) << m;
  EXPECT_EQ(m["changes"][0]["change"], "join");
  EXPECT_EQ(m["changes"][0]["node"], "n4");
  // The shared model and two fragments' momentum (65 weights in all), fp32, over the WAN.
  EXPECT_EQ(m["changes"][0]["catch_up_bytes"], 2 * 65 * 4) << m;
  EXPECT_EQ(m["changes"][1]["change"], "leave");
  EXPECT_EQ(m["changes"][2]["change"], "crash");
  EXPECT_EQ(m["members_at_end"], nlohmann::json({"n1", "n4"}));
  // A sync every H/P = 5 steps: 80 fragments' rounds, each committed once.
  EXPECT_EQ(m["outer_steps_committed"], 80) << m;
  const auto& steps = s["diloco"]["outer_steps_per_data_center"];
  EXPECT_EQ(steps["n1"], 80);
  EXPECT_GT(steps["n4"].get<int>(), 0);
  EXPECT_LT(steps["n4"].get<int>(), 80);  // from its join on
  EXPECT_LT(s["final_loss"].get<double>(), s["loss_curve"][0][1].get<double>());
  EXPECT_TRUE(agents_of(kLab).empty());
}

}  // namespace
}  // namespace testbed::it
