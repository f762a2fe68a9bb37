// DRPS's partitioning (Sec. 5, Alg. 3) and the key map that realizes it on the nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "agent/protocols/ps/key_map.h"
#include "controller/training/drps/drps_index.h"
#include "controller/training/drps/drps_partition.h"

namespace testbed {
namespace {

TEST(KeyMap, WithoutAPartitionEachShardHoldsItsRangeUnderTheSameKeys) {
  const KeyMap m(10, 3);
  EXPECT_TRUE(m.identity());
  EXPECT_EQ(m.shard_of(0), 0);
  EXPECT_EQ(m.shard_of(9), 2);
  const auto parts = m.split({1, 4, 8}, {0.1f, 0.4f, 0.8f});
  EXPECT_EQ(parts[0].keys, (std::vector<uint32_t>{1}));
  EXPECT_EQ(parts[1].keys, (std::vector<uint32_t>{4}));
  EXPECT_EQ(parts[2].values, (std::vector<float>{0.8f}));
}

TEST(KeyMap, APartitionLaysEachShardsKeysEndToEndInTheirOrder) {
  // Keys 0..5 on shards 1 0 1 0 0 1: shard 0 holds job keys 1 3 4 as server keys 0 1 2.
  const KeyMap m({1, 0, 1, 0, 0, 1}, 2);
  ASSERT_EQ(m.ranges().size(), 2u);
  EXPECT_EQ(m.ranges()[0].end, 3u);
  EXPECT_EQ(m.ranges()[1].end, 6u);
  EXPECT_EQ(m.to_server(4), 2u);
  EXPECT_EQ(m.to_server(5), 5u);
  for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(m.to_job(m.to_server(k)), k);
  // A sorted request splits into sorted server keys, values alongside.
  const auto parts = m.split({0, 1, 3, 5}, {10, 11, 13, 15});
  EXPECT_EQ(parts[0].keys, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(parts[0].values, (std::vector<float>{11, 13}));
  EXPECT_EQ(parts[1].keys, (std::vector<uint32_t>{3, 5}));
  EXPECT_EQ(parts[1].values, (std::vector<float>{10, 15}));
  // Dense vectors go out and come back through the same map.
  const std::vector<float> dense = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(m.gather(1, dense), (std::vector<float>{0, 2, 5}));
  std::vector<float> back(6, -1);
  for (int s = 0; s < 2; ++s) m.scatter(s, m.gather(s, dense), back);
  EXPECT_EQ(back, dense);
  EXPECT_THROW(KeyMap({0, 2}, 2), std::invalid_argument);
}

TEST(KeyMap, AMessageNamingMostOfARangeGoesDenseWithZerosWhereItHasNoKey) {
  // One rule for pushes, pulls and sums: past half the range a key-value list is longer.
  EXPECT_FALSE(shorter_dense(5, 10));  // 40 bytes as pairs, 40 dense: the list stays
  EXPECT_TRUE(shorter_dense(6, 10));
  EXPECT_FALSE(shorter_dense(0, 0));
  // Partitioned: shard 0 holds job keys 1 3 4 as server keys 0 1 2.
  const KeyMap m({1, 0, 1, 0, 0, 1}, 2);
  const auto parts = m.split({0, 3, 4, 5}, {10, 13, 14, 15});
  EXPECT_EQ(m.densify(0, parts[0]), (std::vector<float>{0, 13, 14}));
  EXPECT_EQ(m.densify(1, parts[1]), (std::vector<float>{10, 0, 15}));
  // Scattered back as a dense answer is, the values land on their job keys.
  std::vector<float> w(6, -1);
  m.scatter(0, m.densify(0, parts[0]), w);
  EXPECT_EQ(w, (std::vector<float>{-1, 0, -1, 13, 14, -1}));
}

TEST(FillBuckets, TheCheapestBucketTakesItsCheapestBlockLeft) {
  // Block costs in buckets 0 and 1. Bucket 0 (tied at 0, index first) takes block 2 (1),
  // then bucket 1 takes block 0 (2), bucket 0 (1 < 2) its cheapest left, block 1 (5).
  const std::vector<double> cost = {9, 2,  //
                                    5, 6,  //
                                    1, 7};
  const BucketFill f = fill_buckets(cost, {1, 1, 1}, 2);
  EXPECT_EQ(f.bucket_of_block, (std::vector<int>{1, 0, 0}));
  EXPECT_DOUBLE_EQ(f.cost[0], 6);
  EXPECT_DOUBLE_EQ(f.cost[1], 2);
}

TEST(FillBuckets, BlocksOfNoCostSpreadByKeysInsteadOfFillingTheFirstBucket) {
  const BucketFill f = fill_buckets(std::vector<double>(12, 0.0), {3, 1, 1, 1, 1, 1}, 2);
  EXPECT_EQ(f.keys[0], 4u);
  EXPECT_EQ(f.keys[1], 4u);
}

DrpsPartitionInput sparse_lr_input(int shards) {
  DrpsPartitionInput in;
  in.job = {"sparse-lr", 1, shards, 0.05, 0};
  for (int n = 0; n < shards; ++n) {
    in.worker_nodes.push_back(n);
    in.server_nodes.push_back(n);
  }
  in.clocks = 6;
  in.net_per_parameter_s = 128e-9;  // 16 bytes at 1 Gbit/s
  return in;
}

TEST(DrpsPartition, PlacesEveryPibWholeAndAKeyNearTheWorkerThatReadsIt) {
  DrpsPartitionInput in = sparse_lr_input(3);
  DrpsIndexOptions io;
  io.split_at_ranges = false;
  in.pibs = plan_drps_index(in.job, 3, io).pibs;
  ASSERT_FALSE(in.pibs.empty());
  const DrpsPartition p = plan_drps_partition(in);
  const size_t keys = p.shard_of_key.size();
  EXPECT_EQ(std::accumulate(p.fill.keys.begin(), p.fill.keys.end(), uint64_t{0}), keys);
  for (const auto& pib : in.pibs)
    for (uint32_t k : pib) EXPECT_EQ(p.shard_of_key[k], p.shard_of_key[pib.front()]);
  // Contiguous ranges over hashed keys: two thirds of a worker's keys are remote. The
  // rare keys, read by one worker, go to its node's shard.
  EXPECT_NEAR(static_cast<double>(p.remote_before) / p.pulled, 2.0 / 3, 0.05);
  EXPECT_LT(p.remote_after, p.remote_before * 0.9);
  // Balanced: the most loaded bucket's cost within 5% of the least's (Alg. 3's aim).
  const auto [lo, hi] = std::minmax_element(p.fill.cost.begin(), p.fill.cost.end());
  EXPECT_LT(*hi, *lo * 1.05);
  EXPECT_EQ(p.to_json()["blocks"], p.blocks);
}

TEST(DrpsPartition, AKeyReadOnlyByOneNodesWorkerLandsOnThatNode) {
  DrpsPartitionInput in = sparse_lr_input(2);
  const DrpsPartition p = plan_drps_partition(in);
  // Count, for keys read by exactly one worker in the run, how many sit on its node.
  std::vector<std::set<uint32_t>> read(2);
  for (int w = 0; w < 2; ++w) {
    const auto job = make_job(in.job, w);
    for (int c = 0; c < in.clocks; ++c)
      for (uint32_t k : job->keys_for(static_cast<uint64_t>(c)))
        read[static_cast<size_t>(w)].insert(k);
  }
  size_t only = 0, near = 0;
  for (int w = 0; w < 2; ++w)
    for (uint32_t k : read[static_cast<size_t>(w)])
      if (!read[static_cast<size_t>(1 - w)].count(k)) {
        ++only;
        near += p.shard_of_key[k] == w;
      }
  ASSERT_GT(only, 1000u);
  EXPECT_GT(static_cast<double>(near) / static_cast<double>(only), 0.9);
}

TEST(DrpsPartition, RefusesADenseJob) {
  DrpsPartitionInput in = sparse_lr_input(2);
  in.job = {"logreg", 1, 2, 1, 0};
  EXPECT_THROW(plan_drps_partition(in), std::invalid_argument);
}

}  // namespace
}  // namespace testbed
