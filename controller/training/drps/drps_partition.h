// DRPS's multi-objective parameter partitioning (Sec. 5, Alg. 2-3), computed by the
// controller before the agents start, pure.
//
// Every block (each PIB of the index, every other key alone: Sec. 5 starts from "each
// parameter as a PIB") gets a cost on every server machine j (Fig. 6's matrix A):
//   A[b][j] = AccNum(b) * (t_s + |b| t_a)                    its disk I/O (Eq. 1)
//           + t_net * |b| * (accesses of b by workers not on j's machine)   (Eq. 4-5)
// Accesses by a worker on j's own machine cost no network (the paper: a worker and a
// server thread on one machine talk through memory). Alg. 3 then fills the shards as
// buckets: repeatedly the bucket of least total cost takes, of the blocks left, the one
// cheapest *in that bucket*, until every block is placed; its aim is the least cost of the
// most loaded bucket, with proximity coming from each bucket's cheapest blocks being the
// ones its own worker reads.
//
// The accesses are counted over every worker's batches of the run (Alg. 2: the workers
// report the network cost of each block from their local data, a single linear pass, so
// unlike the index's pair counting it needs no sample). Where the paper is silent: ties
// between buckets of equal cost go to the bucket holding fewer keys (so that the keys no
// batch reads, all of cost 0, spread evenly instead of filling the first bucket), then to
// the lower index; both pull and push count toward t_net.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

#include "agent/jobs/job.h"
#include "agent/store/pib_index.h"

namespace testbed {

// Alg. 3 on a cost matrix: `cost[b * buckets + j]` the cost of block b in bucket j,
// `keys[b]` its size (for ties). Returns each block's bucket.
struct BucketFill {
  std::vector<int> bucket_of_block;
  std::vector<double> cost;    // per bucket: the sum of its blocks' costs there
  std::vector<uint64_t> keys;  // per bucket: keys held
};
BucketFill fill_buckets(const std::vector<double>& cost, const std::vector<uint32_t>& keys,
                        int buckets);

struct DrpsPartitionInput {
  JobConfig job;
  int workers_per_node = 1;
  std::vector<int> worker_nodes;            // node of each worker (of each node's LocalWorkers)
  std::vector<int> server_nodes;            // node of each shard
  int clocks = 0;                           // the run's: the batches counted
  std::vector<std::vector<uint32_t>> pibs;  // the index's, whole (job keys)
  IndexOptions disk;                        // t_s, t_a as the index uses them
  // One parameter pulled (key out, value back) and pushed (key and value): 16 bytes on
  // the wire, over the lab's configured rate.
  double net_per_parameter_s = 0;
};

struct DrpsPartition {
  std::vector<uint8_t> shard_of_key;  // the agents' KeyMap is built from this
  BucketFill fill;
  uint64_t blocks = 0;
  // The training pulls' parameters from another node's shard, by the counted batches:
  // with split_keys' contiguous ranges (the runs without partitioning) and with this one.
  uint64_t remote_before = 0, remote_after = 0, pulled = 0;
  double build_s = 0;
  nlohmann::json to_json() const;
};

// Throws std::invalid_argument for more than 255 shards (a byte per key).
DrpsPartition plan_drps_partition(const DrpsPartitionInput& in);

}  // namespace testbed
