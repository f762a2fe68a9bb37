// Anything a user runs in a node can reach the agents' ports. A process in n4's namespace
// opens 40 TCP connections to n1's agent (port 7100) and sends each a ZMTP greeting, a
// handshake and random messages, during a parameter-server run: before, such a run died
// ("node n1: malformed message: 3 frames"). Now the strangers fail the handshake (they lack the
// run's secret), are counted, and the run completes with every iteration; three seeds.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

class HostilePeers : public Line4Lab {};

TEST_F(HostilePeers, GarbageFromInsideANodeNeitherEndsNorJoinsTheRun) {
  REQUIRE_ROOT();
  for (const std::string seed : {"1", "2", "3"}) {
    BackgroundTrain trainer(guard_, kLab,
                            {"--strategy", "bsp", "--model", "mf", "--iterations", "60",
                             "--compute-ms", "20", "--json"},
                            "/tmp/tbt-hostile-train.log");
    // Under way: every agent listens on its port.
    ASSERT_TRUE(trainer.wait_for(R"("iteration":2,)", 60)) << trainer.output();
    const Result garbage =
        run_testbed({"exec", "--lab", kLab, "n4", "--", "/usr/bin/python3",
                     TESTBED_BENCH_DIR + "/zmtp_garbage.py", "198.18.0.1", seed});
    EXPECT_EQ(garbage.status, 0) << garbage.output;
    EXPECT_NE(garbage.output.find("sent 40"), std::string::npos) << garbage.output;
    const int status = trainer.wait();
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << trainer.output();
    const auto summary = summary_of(trainer.output());
    EXPECT_EQ(summary["iterations"], 60) << seed;
    // Every connection is refused at the handshake; a few may close before ZeroMQ reads
    // their greeting, so most, not all, are counted.
    EXPECT_GE(summary["peers"]["refused_connections"].value("n1", 0), 20) << summary["peers"];
    EXPECT_EQ(summary["peers"]["malformed_total"], 0) << summary["peers"];
  }
}

}  // namespace
}  // namespace testbed::it
