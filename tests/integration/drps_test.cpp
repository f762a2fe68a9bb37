// DRPS's disk-resident servers on a real lab: every shard keeps its parameters in a
// RocksDB store of its own, in the lab's directory, reading and writing them back block
// by block. BSP on disk must be the in-memory run exactly (the same float additions);
// the store's counters show the disk traffic; the stores go with the lab.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "agent/store/rocks_store.h"
#include "netns/netns_exec.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

const std::string kLab = "tbt-line4";

class Drps : public Line4Lab {
 protected:
  nlohmann::json train(std::vector<std::string> args) { return train_json(kLab, std::move(args)); }
};

TEST_F(Drps, BspOnDiskIsTheInMemoryRunExactly) {
  for (const auto& [job, scale] :
       std::vector<std::pair<std::string, std::string>>{{"sparse-lr", "0.05"}, {"mf", "0.3"}}) {
    const std::vector<std::string> run = {"--strategy", "bsp", "--model",      job,
                                          "--scale",    scale, "--iterations", "6"};
    const auto memory = train(run);
    auto on_disk = run;
    on_disk.insert(on_disk.end(), {"--store", "disk", "--memory-budget-mb", "1"});
    const auto disk = train(on_disk);
    ASSERT_FALSE(memory.is_null() || disk.is_null()) << job;
    EXPECT_EQ(memory["store"]["kind"], "memory");
    ASSERT_EQ(disk["store"]["kind"], "disk") << disk["store"].dump();
    ASSERT_TRUE(disk.contains("reference_max_abs_diff")) << job;
    EXPECT_EQ(disk["reference_max_abs_diff"], memory["reference_max_abs_diff"]) << job;
    EXPECT_EQ(disk["final_loss"], memory["final_loss"]) << job;
    // Every clock each shard read the blocks the workers pulled and wrote back those
    // they pushed; with 1 MiB of memory some of those reads went to the files.
    const auto& st = disk["store"];
    EXPECT_GT(st["block_reads"].get<uint64_t>(), 0u) << st.dump();
    EXPECT_GT(st["block_writes"].get<uint64_t>(), 0u) << st.dump();
    EXPECT_GT(st["disk_write_bytes"].get<uint64_t>(), 0u) << st.dump();
    if (job == "sparse-lr") {  // 2^16 keys as 1.3 MB of table files: measured 923 reads
      EXPECT_GT(st["disk_reads"].get<uint64_t>(), 0u) << st.dump();
      // With the index, the popular keys each batch reads are a few blocks: fewer block
      // reads, the same run.
      auto indexed = on_disk;
      indexed.insert(indexed.end(), {"--index", "on"});
      const auto ix = train(indexed);
      ASSERT_FALSE(ix.is_null());
      EXPECT_EQ(ix["final_loss"], memory["final_loss"]);
      EXPECT_EQ(ix["reference_max_abs_diff"], memory["reference_max_abs_diff"]);
      ASSERT_TRUE(ix["store"]["index"].is_object()) << ix["store"].dump();
      EXPECT_GT(ix["store"]["index"]["pibs"].get<int>(), 0);
      EXPECT_LT(ix["store"]["block_reads"].get<uint64_t>(), st["block_reads"].get<uint64_t>());
      EXPECT_EQ(st["index"], "off");
      // Partitioned (Alg. 3), whole PIBs on the shards nearest their readers: the same
      // run again, with fewer of the workers' pulled parameters asked of other nodes.
      auto placed = indexed;
      placed.insert(placed.end(), {"--partition", "on"});
      const auto pt = train(placed);
      ASSERT_FALSE(pt.is_null());
      EXPECT_EQ(pt["final_loss"], memory["final_loss"]);
      EXPECT_EQ(pt["reference_max_abs_diff"], memory["reference_max_abs_diff"]);
      ASSERT_TRUE(pt["store"]["partition"].is_object()) << pt["store"].dump();
      const auto remote = [](const nlohmann::json& r) {
        return r["pulled_parameters"]["remote"].get<uint64_t>();
      };
      EXPECT_LT(remote(pt), remote(ix) * 0.9) << pt["pulled_parameters"].dump();
      // Same batches, same keys asked for: only where they were answered moved.
      const auto asked = [&](const nlohmann::json& r) {
        return remote(r) + r["pulled_parameters"]["local"].get<uint64_t>();
      };
      EXPECT_EQ(asked(pt), asked(ix));
      EXPECT_EQ(st["partition"], "off");
    }
    EXPECT_EQ(disk["shards"].size(), 4u);
    for (const auto& [node, shard] : disk["shards"].items())
      EXPECT_TRUE(shard.contains("store")) << node;
  }
  EXPECT_TRUE(std::filesystem::exists("/run/testbed/" + kLab + "/store/shard-0"));
  ASSERT_EQ(run_testbed({"down", kLab}).status, 0);
  EXPECT_FALSE(std::filesystem::exists("/run/testbed/" + kLab + "/store")) << "gone with the lab";
}

// WSP on a lab with a straggler (n4 computes 4x longer): the fast workers choose, every
// read keeps within delta of every worker's clock as the shards recorded them, some reads
// chose to wait, and the run trains.
TEST_F(Drps, WspWaitsByChoiceAndNeverBeyondDelta) {
  const auto wsp = train({"--strategy", "drps", "--parallel", "wsp", "--staleness", "1", "--model",
                          "sparse-lr", "--scale", "0.05", "--iterations", "12", "--compute-ms",
                          "40-60", "--slow-dc", "n4:4"});
  ASSERT_FALSE(wsp.is_null());
  EXPECT_EQ(wsp["consistency"], "drps wsp(1)");
  EXPECT_EQ(wsp["staleness_bound"], 1);
  EXPECT_EQ(wsp["store"]["kind"], "disk");
  EXPECT_LE(wsp["max_staleness"].get<int>(), 1) << wsp["staleness_histogram"].dump();
  const auto& choices = wsp["wsp"];
  ASSERT_TRUE(choices.is_object()) << wsp.dump().substr(0, 400);
  // One master decides for the job: each of the 4 workers' requests for clocks 1-12
  // either chooses or is held in another's waiting set, once (not once per shard).
  EXPECT_EQ(choices["master"], "n1");
  EXPECT_GE(choices["choices"].get<double>(), 4) << choices.dump();
  EXPECT_EQ(choices["choices"].get<double>() + choices["held"].get<double>(), 4 * 12)
      << choices.dump();
  EXPECT_GT(choices["waited"].get<double>(), 0) << choices.dump();
  // Every wait is logged with its estimate and its realized length.
  const auto& waits = choices["waits"];
  EXPECT_EQ(waits.size(), choices["waited"].get<size_t>());
  for (const auto& w : waits) {
    EXPECT_GE(w["realized_s"].get<double>(), 0) << w.dump();
    EXPECT_GE(w["estimated_s"].get<double>(), 0) << w.dump();
  }
  const double share = choices["wait_summary"]["forced_share"];
  EXPECT_GE(share, 0);
  EXPECT_LE(share, 1);
  EXPECT_EQ(choices["readings"]["delta"], 1);
  EXPECT_LT(wsp["final_loss"].get<double>(), wsp["loss_curve"][0][1].get<double>());

  // With no bound, nothing is forced and the run still trains; timed to convergence: within
  // 1% of where single-process BSP ends the run's 12 clocks.
  const auto free =
      train({"--strategy", "drps", "--parallel", "wsp", "--staleness", "none", "--model",
             "sparse-lr", "--scale", "0.05", "--iterations", "12", "--compute-ms", "40-60",
             "--slow-dc", "n4:4", "--target-rule", "long-run"});
  ASSERT_FALSE(free.is_null());
  const auto& long_run = free["target_long_run"];
  EXPECT_EQ(long_run["clocks"], 12);
  EXPECT_DOUBLE_EQ(long_run["loss"].get<double>(), free["reference_loss_curve"][12].get<double>());
  EXPECT_NEAR(free["target_loss"].get<double>(), 1.01 * long_run["loss"].get<double>(), 1e-9);
  EXPECT_TRUE(long_run.contains("change_over_last_tenth"));
  EXPECT_EQ(free["consistency"], "drps wsp(none)");
  EXPECT_EQ(free["staleness_bound"], "none");
  EXPECT_EQ(free["wsp"]["bound_forced"], 0);
  EXPECT_EQ(free["wsp"]["readings"]["delta"], "none");
  EXPECT_LT(free["final_loss"].get<double>(), free["loss_curve"][0][1].get<double>());
}

// A server shard's node killed mid-run: the run fails naming it (an agent cannot rejoin a
// run under way), and its store, reopened, still holds a block for every parameter of its
// range, the updates it acknowledged among them (RocksDB's log replays on open).
TEST_F(Drps, AKilledServerIsNamedAndItsStoreReopensWithEveryParameter) {
  BackgroundTrain trainer(guard_, kLab,
                          {"--strategy", "drps", "--model", "sparse-lr", "--scale", "0.05",
                           "--iterations", "100000", "--compute-ms", "20"},
                          "/tmp/tbt-drps-killed.log");
  trainer.wait_for("iteration 2/", 30);
  const auto agents = agents_of(kLab);
  ASSERT_EQ(agents.size(), 4u) << trainer.output();
  // n3 hosts shard 2 (every node a shard, in the profile's order).
  const auto n3 =
      std::find_if(agents.begin(), agents.end(), [](const auto& a) { return a.second == "n3"; });
  ASSERT_NE(n3, agents.end());
  kill(n3->first, SIGKILL);
  const int status = trainer.wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
  EXPECT_NE(trainer.output().find("the agent of node n3 died"), std::string::npos)
      << trainer.output();
  // sparse-lr x0.05 has 2^16 keys: 16,384 per shard, one block each without the index.
  RocksStore reopened("/run/testbed/" + kLab + "/store/shard-2");
  constexpr uint32_t kShardKeys = 16384;
  uint32_t present = 0;
  for (uint32_t block = 0; block < kShardKeys + 16; ++block)
    present += reopened.read(block) ? 1 : 0;
  EXPECT_EQ(present, kShardKeys);
}

TEST_F(Drps, StoreOptionsAreCheckedBeforeAnyAgentStarts) {
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--strategy", "bsp", "--store", "tape"}, "expected memory or disk"},
           {{"--strategy", "bsp", "--memory-budget-mb", "4"}, "is for --store disk"},
           {{"--strategy", "bsp", "--index", "on"}, "is for --store disk"},
           {{"--strategy", "bsp", "--partition", "on"}, "is for --store disk"},
           {{"--strategy", "drps", "--partition", "yes"}, "expected on or off"},
           {{"--strategy", "drps", "--model", "logreg", "--partition", "on"},
            "reads every key each clock"},
           {{"--strategy", "bsp", "--store", "disk", "--index-prune", "1.5"}, "at most 1"},
           {{"--strategy", "bsp", "--store", "disk", "--memory-budget-mb", "0"}, "from 1 to 65536"},
           {{"--strategy", "gaia", "--store", "disk"}, "not gaia"},
           {{"--strategy", "mst", "--store", "disk"},
            "--store is for bsp, ssp, async and drps, not mst"},
           {{"--strategy", "drps", "--store", "memory"}, "keeps its parameters on disk"},
           {{"--strategy", "drps", "--parallel", "lazy"}, "expected bsp, ssp, async or wsp"},
           {{"--strategy", "ssp", "--parallel", "wsp"}, "--parallel is for drps"},
           {{"--strategy", "ssp", "--staleness", "none"}, "--staleness none is for WSP"}}) {
    expect_train_refused(kLab, args, says);
  }
}

}  // namespace
}  // namespace testbed::it
