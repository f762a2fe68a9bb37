// The parameter-server strategies on a real lab: workers in the nodes' namespaces push to
// and pull from shards across the shaped links. BSP must be the single-process run; SSP
// must hold its bound, asserted from the clocks the workers and shards recorded; SSP and
// async must converge to BSP's loss; a node that dies is named and the lab survives.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "controller/lab/teardown.h"
#include "netns/netns_exec.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

class ParameterServer : public Line4Lab {
 protected:
  nlohmann::json train(std::vector<std::string> args) { return train_json(kLab, std::move(args)); }
};

TEST_F(ParameterServer, BspOnShardsIsTheSingleProcessRun) {
  // Every node a shard, then one shard on the best-connected node (the MXNET star).
  for (const std::string servers : {"all", "best"}) {
    for (const std::string job : {"logreg", "mf"}) {
      const auto s = train({"--strategy", "bsp", "--model", job, "--scale", "0.3", "--iterations",
                            "8", "--servers", servers});
      ASSERT_FALSE(s.is_null()) << job << " on " << servers;
      // train fails by itself past the tolerance; here the check must have been made.
      ASSERT_TRUE(s.contains("reference_max_abs_diff")) << job;
      EXPECT_LE(s["reference_max_abs_diff"].get<double>(), 1e-4) << job << " on " << servers;
      EXPECT_EQ(s["servers"].size(), servers == "all" ? 4u : 1u);
      EXPECT_EQ(s["max_staleness"], 0);
      EXPECT_GT(s["wan_bytes"].get<double>(), 0) << "the shards talk across the links";
      EXPECT_LT(s["loss_curve"].back()[1].get<double>(), s["loss_curve"][0][1].get<double>());
      // The single-process curve the run was aimed by, before clocks 0..8: the default
      // target is its loss after 6 (three quarters of the clocks).
      ASSERT_EQ(s["reference_loss_curve"].size(), 9u) << job;
      EXPECT_EQ(s["reference_loss_curve"][6].get<double>(), s["target_loss"].get<double>());
    }
  }
  EXPECT_TRUE(agents_of(kLab).empty());
}

TEST_F(ParameterServer, SparseKeysTravelAsKeysAndBspStaysExact) {
  // sparse-lr pushes and pulls only its batches' keys: the sparse path of the wire format.
  const auto s =
      train({"--strategy", "bsp", "--model", "sparse-lr", "--scale", "0.05", "--iterations", "6"});
  ASSERT_FALSE(s.is_null());
  ASSERT_TRUE(s.contains("reference_max_abs_diff"));
  EXPECT_LE(s["reference_max_abs_diff"].get<double>(), 1e-4);
  // 2^16 keys of 4 bytes over 4 shards each clock, were they dense: far more than sent.
  const double dense_bytes = 65536.0 * 4 * 2 * 4 * 6;
  EXPECT_LT(s["wan_bytes"].get<double>(), dense_bytes);
}

TEST_F(ParameterServer, WorkersOnChosenNodesAndStragglersByTheSeed) {
  // MLfabric's cluster: a server of its own and nodes that only relay (its core switch).
  // C2-like stragglers: half the clocks of each worker 3x slower than 100 ms.
  const auto s =
      train({"--strategy", "bsp", "--model", "logreg", "--iterations", "8", "--servers", "n1",
             "--workers", "n3,n4", "--compute-ms", "100", "--stragglers", "50%:3"});
  ASSERT_FALSE(s.is_null());
  EXPECT_LE(s["reference_max_abs_diff"].get<double>(), 1e-4) << "BSP exact over two workers";
  EXPECT_EQ(s["workers"].size(), 2u);
  EXPECT_TRUE(s["workers"].contains("n3") && s["workers"].contains("n4")) << s["workers"];
  EXPECT_EQ(s["roles"]["n1"], nlohmann::json::array({"server-shard-0"}));
  EXPECT_TRUE(s["roles"]["n2"].empty()) << s["roles"];
  EXPECT_DOUBLE_EQ(s["stragglers"]["share"].get<double>(), 0.5);
  // A straggling clock lasts at least its 300 ms (load only lengthens it); with 16 draws
  // at 50% some clock of the seed straggles.
  const auto times = s["iteration_s"].get<std::vector<double>>();
  EXPECT_GE(*std::max_element(times.begin(), times.end()), 0.3);
}

TEST_F(ParameterServer, BadOptionsAreRefusedBeforeAnyAgentStarts) {
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--strategy", "bsp", "--servers", "n1,nowhere"}, "no node named 'nowhere'"},
           {{"--strategy", "bsp", "--workers", "n2,nowhere"}, "--workers: no node named"},
           {{"--strategy", "gaia", "--workers", "n2"}, "--workers is not for gaia"},
           {{"--strategy", "mst", "--stragglers", "10%:2"}, "parameter-server strategies"},
           {{"--strategy", "async", "--stragglers", "10%"}, "SHARE:FACTOR"},
           {{"--strategy", "ssp", "--model", "resnet50"}, "trains a job"},
           {{"--strategy", "async", "--staleness", "-1"}, "staleness"},
           {{"--strategy", "bsp", "--chunk", "1024"}, "for the tree strategies"},
           {{"--strategy", "mst", "--model", "mf"}, "parameter-server strategies"}}) {
    expect_train_refused(kLab, args, says);
  }
}

TEST_F(ParameterServer, SspNeverLetsAWorkerRunMoreThanSClocksAhead) {
  // Stragglers: each clock a worker computes for 0-300 ms, drawn from the seed.
  const int s_bound = 1;
  const auto s = train({"--strategy", "ssp", "--staleness", std::to_string(s_bound), "--model",
                        "logreg", "--iterations", "12", "--compute-ms", "0-300"});
  ASSERT_FALSE(s.is_null());
  EXPECT_LE(s["max_staleness"].get<int>(), s_bound);
  // A worker starts clock c only once every worker's update of clock c-s-1 took effect at
  // every shard: the bound, from the clocks recorded on both sides (one host, one clock).
  int checked = 0;
  for (const auto& [worker, w] : s["workers"].items()) {
    const auto started = w["started_ns"].get<std::vector<int64_t>>();
    for (size_t c = s_bound + 1; c < started.size(); ++c) {
      for (const auto& [node, shard] : s["shards"].items()) {
        for (const auto& applied : shard["applied_ns"]) {
          ASSERT_GT(applied.size(), c - s_bound - 1) << node;
          EXPECT_GE(started[c], applied[c - s_bound - 1].get<int64_t>())
              << worker << " started clock " << c << " before an update of clock "
              << c - s_bound - 1 << " took effect at " << node;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST_F(ParameterServer, SspAndAsyncConvergeToBspsLoss) {
  for (const std::string job : {"logreg", "mf"}) {
    std::map<std::string, double> final_loss;
    for (const std::string strategy : {"bsp", "ssp", "async"}) {
      const auto s = train({"--strategy", strategy, "--model", job, "--scale", "0.3",
                            "--iterations", "25", "--compute-ms", "0-100"});
      ASSERT_FALSE(s.is_null()) << strategy;
      final_loss[strategy] = s["final_loss"].get<double>();
    }
    EXPECT_LE(final_loss["ssp"], 1.05 * final_loss["bsp"]) << job;
    EXPECT_LE(final_loss["async"], 1.05 * final_loss["bsp"]) << job;
  }
}

TEST_F(ParameterServer, ATrainEndedBySigtermTakesItsAgentsWithIt) {
  // Ctrl-C or a CI job's timeout: the agents must not outlive their train.
  BackgroundTrain trainer(guard_, kLab,
                          {"--strategy", "async", "--model", "mf", "--iterations", "100000"},
                          "/tmp/tbt-ps-sigterm.log");
  // Until the run is under way (its first iteration printed), so its agents are recorded.
  trainer.wait_for("iteration 1/", 20);
  const auto agents = agents_of(kLab);
  ASSERT_EQ(agents.size(), 4u) << trainer.output();
  kill(trainer.pid(), SIGTERM);
  const int status = trainer.wait();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  // Ended and reaped by the train before it died: no process, not even a zombie.
  for (const auto& [pid, node] : agents) EXPECT_EQ(process_start_time(pid), 0u) << node;
}

TEST_F(ParameterServer, ADyingNodeIsNamedWithinTwoSecondsAndTheLabSurvives) {
  BackgroundTrain trainer(
      guard_, kLab,
      {"--strategy", "async", "--model", "mf", "--iterations", "100000", "--compute-ms", "50"},
      "/tmp/tbt-ps-dying.log");
  std::vector<std::pair<int, std::string>> agents;
  for (int i = 0; i < 500 && agents.size() < 4; ++i) {
    agents = agents_of(kLab);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(agents.size(), 4u);
  // Until the workers are under way (their first iteration is printed).
  ASSERT_TRUE(trainer.wait_for("iteration 1/", 20)) << trainer.output();
  const auto killed = std::chrono::steady_clock::now();
  kill(agents[2].first, SIGKILL);
  const std::string named = "the agent of node " + agents[2].second + " died";
  const bool said = trainer.wait_for(named, 10);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  EXPECT_TRUE(said) << trainer.output();
  EXPECT_LT(seconds, 2.0) << "named after " << seconds << " s";
  const int status = trainer.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  for (const auto& [pid, node] : agents) EXPECT_EQ(process_start_time(pid), 0u) << node;
  // The lab is intact: it trains again.
  const auto again = train({"--strategy", "bsp", "--model", "logreg", "--iterations", "2"});
  EXPECT_FALSE(again.is_null());
}

}  // namespace
}  // namespace testbed::it
