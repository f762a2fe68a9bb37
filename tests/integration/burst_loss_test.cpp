// Bursty loss on a real link (netns/burst_loss.h): 100,000 numbered datagrams across a
// direction with Gilbert's model, the loss runs counted at the receiver and held against
// the model's own distribution. Run with either backend: the delay line here, netem under
// scripts/kernel-test.sh; the figures must not depend on which.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

const std::string kTool = TESTBED_TEST_TOOLS + "/udp_sequence.py";

TEST(BurstLoss, GilbertElliottBurstsMatchTheModelOver100kPackets) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-burst");
  // p 1%, r 25%: the bad state lasts 4 packets on average and loses all of them, the good
  // state loses none; 3.85% of packets lost, in bursts of geometric length.
  constexpr double kP = 0.01, kR = 0.25;
  const std::string profile = temp_file("tbt-burst.yaml");
  std::ofstream(profile) << "lab: tbt-burst\nnodes: {a: {}, b: {}}\nlinks:\n"
                            "  - endpoints: [a, b]\n    bandwidth: 1gbit\n    delay: 1ms\n"
                            "    a2b: {loss: {gilbert_elliott: {p: 1%, r: 25%}}}\n";
  const Result up = run_testbed({"up", profile});
  ASSERT_EQ(up.status, 0) << up.output;

  constexpr int kCount = 100000;
  const std::string ready = temp_file("tbt-burst.ready"), out = temp_file("tbt-burst.json");
  std::filesystem::remove(ready);
  std::filesystem::remove(out);
  const pid_t receiver = spawn_testbed({"exec", "--lab", "tbt-burst", "b", "--", "/usr/bin/python3",
                                        kTool, "receive", "--port", "9000", "--count",
                                        std::to_string(kCount), "--ready", ready, "--out", out});
  guard.own(receiver);
  for (int i = 0; i < 300 && !std::filesystem::exists(ready); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(std::filesystem::exists(ready)) << "the receiver never bound its port";
  // 50 datagrams every 2.5 ms: 20,000 a second, well below what either backend passes on
  // a loaded 2-core host, so that nothing but the model drops them.
  const Result send =
      run_testbed({"exec", "--lab", "tbt-burst", "a", "--", "/usr/bin/python3", kTool, "send",
                   "--to", "198.18.0.2", "--port", "9000", "--count", std::to_string(kCount)});
  ASSERT_EQ(send.status, 0) << send.output;
  int status = 0;
  ASSERT_EQ(waitpid(receiver, &status, 0), receiver);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::ifstream in(out);
  const auto result = nlohmann::json::parse(in);
  const double lost = result["lost"].get<double>();
  double runs = 0, ones = 0;
  for (const auto& [len, n] : result["runs"].items()) {
    runs += n.get<double>();
    if (len == "1") ones = n.get<double>();
  }
  ASSERT_GT(runs, 0) << result;
  const double rate = lost / kCount, mean_run = lost / runs, share_of_ones = ones / runs;
  std::cout << "[ measured ] " << lost << " of " << kCount << " lost (" << rate * 100 << "%, model "
            << kP / (kP + kR) * 100 << "%) in " << runs << " runs of mean length " << mean_run
            << " (model " << 1 / kR << "), runs of one " << share_of_ones * 100 << "% (model "
            << kR * 100 << "%)\n";
  // About 960 bursts: the bounds are four to five standard errors of the model's own
  // spread (netem draws unseeded, so this run's sample is not the same each time). Loss
  // the model did not make (a full queue) would lengthen the runs and raise the rate.
  EXPECT_NEAR(rate, kP / (kP + kR), 0.2 * kP / (kP + kR)) << result;
  EXPECT_NEAR(mean_run, 1 / kR, 0.5) << result;
  EXPECT_NEAR(share_of_ones, kR, 0.07) << result;
}

}  // namespace
}  // namespace testbed::it
