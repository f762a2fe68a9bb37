// DRPS's parameter index for a run (Sec. 4), computed by the controller before the agents
// start, pure: the access statistics are the job's own (each worker's batches are a
// function of the seed, so the controller reads the same keys the workers will), a
// sample of the first clocks of every worker as the paper samples 1% of the data; Alg. 1
// (agent/store/pib_index.h) merges them into PIBs over the whole model. A block lives in
// one shard's store: without partitioning each PIB is split at the shards' key ranges;
// with it (drps_partition.h, Sec. 5) whole PIBs are placed.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "agent/jobs/job.h"
#include "agent/protocols/ps/consistency.h"
#include "agent/store/pib_index.h"

namespace testbed {

struct DrpsIndexOptions {
  int sample_clocks = 4;  // per worker; see docs/drps.md for why so few
  // Keys read by fewer than this share of the sampled batches are pruned (Sec. 4.2): a
  // batch of sparse-lr x1 reads about 13,000 keys, and counting every pair of them each
  // round would take minutes; the keys in 90% of batches (the top 450 or so) take seconds.
  double prune_share = 0.9;
  IndexOptions index;           // t_s, t_a, k, gamma (prune_below is set from prune_share)
  bool split_at_ranges = true;  // false when the partition places whole PIBs
};

struct DrpsIndex {
  std::vector<std::vector<uint32_t>> pibs;  // each inside one shard's range, or whole
  IndexResult built;                        // Alg. 1's figures, before the split
  size_t batches = 0;
  double build_s = 0;        // wall time of Alg. 1
  DrpsIndexOptions options;  // as used: our choices where the paper is silent
  nlohmann::json to_json() const;
};

// The index of `job`'s model for `shards` shards (split_keys' ranges): every worker's
// batches of the first clocks sampled, Alg. 1 run on them, each PIB split at the ranges
// unless options.split_at_ranges is false.
DrpsIndex plan_drps_index(const JobConfig& job, int shards, const DrpsIndexOptions& options);

}  // namespace testbed
