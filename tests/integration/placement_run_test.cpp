// The placement strategies on a real lab: a parameter server at one end of a line of four
// nodes, so the other end's pushes cross two relays. Through relays, segments and
// reassembly, BSP must still be the single-process run; the paced (model) mode must take
// the time the placement's closed form predicts; native mode must relay as well.
#include <gtest/gtest.h>

#include "controller/lab/teardown.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

class PlacementRun : public Line4Lab {
 protected:
  nlohmann::json train(std::vector<std::string> args) {
    args.insert(args.begin(), {"--iterations", "4"});
    return train_json(kLab, std::move(args));
  }
};

TEST_F(PlacementRun, RelayedBspIsExactAndTakesThePredictedTime) {
  // 0.004 of ResNet-50: 92,000 floats (368 KB), six segments, small enough for the shard
  // to report its values for the exactness check.
  for (const std::string mode : {"model", "native"}) {
    const auto s = train(
        {"--strategy", "apsp@n1", "--model", "resnet50", "--scale", "0.004", "--apsp-mode", mode});
    ASSERT_FALSE(s.is_null()) << mode;
    EXPECT_EQ(s["servers"], nlohmann::json::array({"n1"}));
    EXPECT_EQ(s["roles"]["n1"], nlohmann::json::array({"server-shard-0"})) << "no worker";
    ASSERT_TRUE(s.contains("reference_max_abs_diff")) << mode;
    EXPECT_LE(s["reference_max_abs_diff"].get<double>(), 1e-4) << mode;
    // n4's flow crosses n3 and n2, n3's crosses n2: 3 relayed transfers per direction per
    // clock of 368 KB each (and pulls, which are tiny).
    EXPECT_GE(s["relayed_bytes"].get<double>(), 3.0 * 2 * 4 * 368000 * 0.99) << mode;
    const auto& flows = s["placement"]["flows"];
    ASSERT_EQ(flows.size(), 3u);
    for (const auto& f : flows) EXPECT_EQ(f["path"].back(), "n1");
    if (mode == "model") {
      // Paced below every link's rate, the iterations take T_v over TCP's goodput. The
      // bound leaves room for a loaded 2-core machine; the APSP scenarios hold 10%.
      EXPECT_NEAR(s["model_ratio"].get<double>(), 1.0, 0.2) << s["comm_time_s"];
    }
  }
}

TEST_F(PlacementRun, ServerNamesAreCheckedBeforeAnythingStarts) {
  const Result r = run_testbed({"train", kLab, "--strategy", "apsp@nowhere"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("no node named 'nowhere'"), std::string::npos) << r.output;
  const Result wrong = run_testbed({"train", kLab, "--strategy", "mst", "--server", "n1"});
  EXPECT_NE(wrong.status, 0);
  EXPECT_NE(wrong.output.find("--server is for ps and the placement strategies"), std::string::npos)
      << wrong.output;
  EXPECT_TRUE(agents_of(kLab).empty());
}

}  // namespace
}  // namespace testbed::it
