// DRPS's disk-resident parameters: the block layout, reading and adding through blocks,
// the RocksDB store (reopened after its server ends, counting its disk reads), and the
// parameter index of Sec. 4 on the paper's own examples.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include "agent/protocols/drps/stored_shard_values.h"
#include "agent/protocols/ps/server_shard.h"
#include "agent/store/block_layout.h"
#include "agent/store/blocked_parameters.h"
#include "agent/store/memory_store.h"
#include "agent/store/pib_index.h"
#include "agent/store/rocks_store.h"
#include "controller/training/drps/drps_index.h"

namespace testbed {
namespace {

TEST(BlockLayout, PibsAreBlocksAndEveryOtherKeyIsAlone) {
  const BlockLayout plain(10, 14);
  EXPECT_EQ(plain.blocks(), 4u);
  EXPECT_NE(plain.block_of(10), plain.block_of(11));
  const BlockLayout indexed(10, 16, {{13, 11}, {15}});
  EXPECT_EQ(indexed.blocks(), 5u);  // {13, 11}, {15}, 10, 12, 14
  EXPECT_EQ(indexed.block_of(13), indexed.block_of(11));
  EXPECT_EQ(indexed.offset_of(13), 0u);
  EXPECT_EQ(indexed.offset_of(11), 1u);
  EXPECT_EQ(indexed.blocks_for({11, 13, 15}).size(), 2u);
  EXPECT_THROW(BlockLayout(10, 16, {{9}}), std::invalid_argument);
  EXPECT_THROW(BlockLayout(10, 16, {{11}, {11, 12}}), std::invalid_argument);
}

TEST(BlockedParameters, ReadsEachBlockOnceAndWritesBackWhatItAdds) {
  MemoryStore store;
  BlockedParameters p(store, BlockLayout(0, 6, {{1, 4}}));
  p.load([](uint32_t key) { return static_cast<float>(key); });
  EXPECT_EQ(store.counters().block_writes, 5u);
  EXPECT_EQ(p.read({4, 1, 2}), (std::vector<float>{4, 1, 2}));
  EXPECT_EQ(store.counters().block_reads, 2u) << "keys 1 and 4 share a block";
  p.add({1, 4, 5}, {0.5f, -1, 2});
  EXPECT_EQ(store.counters().block_reads, 4u);
  EXPECT_EQ(store.counters().block_writes, 7u);
  EXPECT_EQ(p.read({0, 1, 4, 5}), (std::vector<float>{0, 1.5f, 3, 7}));
  MemoryStore empty;
  BlockedParameters unloaded(empty, BlockLayout(0, 2));
  EXPECT_THROW(unloaded.read({1}), std::runtime_error);
}

// A directory of the test's own, removed however the test ends.
struct TempDir {
  explicit TempDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("tbtest-" + name)) {
    std::filesystem::remove_all(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

TEST(RocksStore, KeepsItsParametersOnDiskAcrossARestartAndCountsDiskReads) {
  const TempDir temp("rocks");
  const std::string& dir = temp.path;
  constexpr uint32_t kKeys = 200'000;  // 800 KB of floats against a 64 KiB budget
  RocksStoreOptions small;
  small.memory_budget_bytes = 64 << 10;
  {
    RocksStore store(dir, small);
    BlockedParameters p(store, BlockLayout(0, kKeys));
    p.load([](uint32_t key) { return static_cast<float>(key) * 0.5f; });
    p.add({7, 150'000}, {1, 2});
  }  // the server ends; a new one reopens the same files
  RocksStore store(dir, small);
  BlockedParameters p(store, BlockLayout(0, kKeys));
  EXPECT_EQ(p.read({7, 150'000, 199'999}), (std::vector<float>{4.5f, 75'002, 99'999.5f}));
  EXPECT_FALSE(store.read(kKeys + 1)) << "never written";
  std::mt19937 rng(1);
  std::vector<uint32_t> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back(rng() % kKeys);
  p.read(keys);
  const StoreCounters c = store.counters();
  std::sort(keys.begin(), keys.end());
  const auto distinct = static_cast<uint64_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
  EXPECT_EQ(c.block_reads, 3 + 1 + distinct) << "each block once per read";
  // The data is in one table file (2.1 MB), not the memtable (the restart flushed it), in
  // about 800 data blocks of 4 KiB, each holding a few hundred neighbouring keys. Blocks
  // are read in key order, so each data block the reads touch (about 750) is fetched
  // from the file once and the 32 KiB cache keeps none for long (measured: 727).
  EXPECT_GT(c.disk_reads, 500u);
  EXPECT_GT(c.disk_read_bytes, c.disk_reads * 1000);
}

TEST(RocksStore, NamesTheCallThatFailed) {
  try {
    RocksStore store("/proc/version/not-a-dir");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rocksdb DB::Open /proc/version/not-a-dir"),
              std::string::npos)
        << e.what();
  }
}

TEST(StoredShardValues, AShardOnBlocksAppliesEveryModelAsInMemory) {
  // The same pushes, in the same order, to a shard in memory and one on blocks (with a
  // PIB): under each model the values answered and left are equal, bit for bit.
  for (const auto kind : {Consistency::Kind::kBsp, Consistency::Kind::kAsync}) {
    const Consistency model{kind, 0};
    const auto initial = [](uint32_t key) { return 0.25f * static_cast<float>(key); };
    std::vector<float> start;
    for (uint32_t k = 100; k < 110; ++k) start.push_back(initial(k));
    ServerShard memory({100, 110}, 2, model, start);
    auto stored = std::make_unique<StoredShardValues>(
        std::make_unique<MemoryStore>(), 100, 110, std::vector<std::vector<uint32_t>>{{103, 107}},
        initial);
    ServerShard disk({100, 110}, 2, model, std::move(stored));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> delta(-1, 1);
    for (uint64_t clock = 0; clock < 5; ++clock) {
      for (int w = 0; w < 2; ++w) {
        const std::vector<uint32_t> keys = {101, 103, static_cast<uint32_t>(104 + clock)};
        const std::vector<float> values = {delta(rng), delta(rng), delta(rng)};
        const auto a = memory.push(w, clock, clock, false, keys, values, 0);
        const auto b = disk.push(w, clock, clock, false, keys, values, 0);
        ASSERT_EQ(a.size(), b.size());
        const auto pa = memory.pull(w, clock + 1, false, {103, 107}, true);
        const auto pb = disk.pull(w, clock + 1, false, {103, 107}, true);
        EXPECT_EQ(pa[0].values, pb[0].values);
      }
    }
    EXPECT_EQ(memory.values(), disk.values());
  }
}

using Batches = std::vector<std::vector<uint32_t>>;

Batches repeat(const std::vector<std::pair<std::vector<uint32_t>, int>>& groups) {
  Batches out;
  for (const auto& [keys, n] : groups)
    for (int i = 0; i < n; ++i) out.push_back(keys);
  return out;
}

TEST(PibIndex, ThePapersFigureOneSavesFourSeeks) {
  // Fig. 1: four batches read v1 and v7 together; indexed, 8 t_s + 8 t_a become
  // 4 t_s + 8 t_a.
  IndexOptions o;
  const Batches batches = repeat({{{1, 7}, 4}});
  const IndexResult r = build_index(batches, o);
  ASSERT_EQ(r.pibs, (Batches{{1, 7}}));
  EXPECT_DOUBLE_EQ(r.cost_before_s, 8 * o.seek_s + 8 * o.per_parameter_s);
  EXPECT_DOUBLE_EQ(r.cost_after_s, 4 * o.seek_s + 8 * o.per_parameter_s);
}

TEST(PibIndex, TopKMergesDisjointPairsPerRoundAsSectionFourTwoDoes) {
  // Sec. 4.2's example, a..f = 0..5 with Delta_ab > Delta_ac > Delta_cd > Delta_ef (with
  // t_s >> t_a, Delta grows with the batches reading both). Top-k merges {a,b}, {c,d} and
  // {e,f} in the first round ({a,c} waits: a was merged), then {a,b,c,d}; one pair per
  // round needs four rounds for the same blocks.
  const Batches batches = repeat({{{0, 1}, 4}, {{0, 2}, 3}, {{2, 3}, 2}, {{4, 5}, 1}});
  IndexOptions o;
  const IndexResult topk = build_index(batches, o);
  EXPECT_EQ(topk.pibs, (Batches{{0, 1, 2, 3}, {4, 5}}));
  EXPECT_EQ(topk.rounds, 3);  // two that merged, one that found nothing
  EXPECT_EQ(topk.merges, 4u);
  o.top_k = 1;
  const IndexResult one = build_index(batches, o);
  EXPECT_EQ(one.pibs, topk.pibs);
  EXPECT_EQ(one.rounds, 5);
  EXPECT_LT(topk.cost_after_s, topk.cost_before_s);
  EXPECT_DOUBLE_EQ(one.cost_after_s, topk.cost_after_s);
}

TEST(PibIndex, KeysNeverReadTogetherOrPrunedStayAlone) {
  const Batches batches = repeat({{{0}, 5}, {{1}, 5}, {{2, 3}, 1}, {{4, 5}, 3}});
  IndexOptions o;
  o.prune_below = 2;  // 2 and 3 are read by one batch only
  const IndexResult r = build_index(batches, o);
  EXPECT_EQ(r.pibs, (Batches{{4, 5}}));
  EXPECT_EQ(r.indexed_keys, 4u);
  o.min_gain_s = 1.0;  // gamma above any saving: nothing merges
  EXPECT_TRUE(build_index(batches, o).pibs.empty());
}

TEST(DrpsIndex, PibsOfTheJobsOwnBatchesStayInsideOneShard) {
  const JobConfig job{"sparse-lr", 1, 2, 0.05, 0};
  const auto shards = split_keys(make_job(job, 0)->parameters(), 3);
  DrpsIndexOptions o;
  o.sample_clocks = 3;
  const DrpsIndex index = plan_drps_index(job, static_cast<int>(shards.size()), o);
  EXPECT_EQ(index.batches, 6u);
  ASSERT_FALSE(index.pibs.empty());
  std::set<uint32_t> seen;
  for (const auto& pib : index.pibs) {
    EXPECT_GE(pib.size(), 2u);
    const auto shard = std::find_if(shards.begin(), shards.end(),
                                    [&](const KeyRange& r) { return r.contains(pib.front()); });
    for (uint32_t key : pib) {
      EXPECT_TRUE(shard->contains(key)) << key;
      EXPECT_TRUE(seen.insert(key).second) << key << " in two PIBs";
    }
  }
  // Pruned to keys in 90% of the batches: the popular head of the power law, together.
  EXPECT_LT(index.built.cost_after_s, index.built.cost_before_s);
  EXPECT_LE(index.built.indexed_keys, seen.size() + 2 * shards.size());
  EXPECT_EQ(index.to_json()["pibs"], index.pibs.size());
}

}  // namespace
}  // namespace testbed
