#include "controller/training/drps/drps_partition.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <stdexcept>

#include "agent/jobs/local_workers.h"
#include "agent/protocols/ps/consistency.h"

namespace testbed {

BucketFill fill_buckets(const std::vector<double>& cost, const std::vector<uint32_t>& keys,
                        int buckets) {
  const size_t w = static_cast<size_t>(buckets), blocks = keys.size();
  // Each bucket's blocks from cheapest to dearest there, so "the cheapest block left in
  // the bucket" is the first one not yet placed: O(B W) steps after the sorts.
  std::vector<std::vector<uint32_t>> order(w);
  for (size_t j = 0; j < w; ++j) {
    order[j].resize(blocks);
    std::iota(order[j].begin(), order[j].end(), 0u);
    std::stable_sort(order[j].begin(), order[j].end(),
                     [&](uint32_t a, uint32_t b) { return cost[a * w + j] < cost[b * w + j]; });
  }
  BucketFill f;
  f.bucket_of_block.assign(blocks, -1);
  f.cost.assign(w, 0);
  f.keys.assign(w, 0);
  std::vector<size_t> next(w, 0);
  for (size_t placed = 0; placed < blocks; ++placed) {
    size_t j = 0;  // the bucket of least cost, then fewest keys (docs/drps.md: our tie rule)
    for (size_t k = 1; k < w; ++k)
      if (f.cost[k] < f.cost[j] || (f.cost[k] == f.cost[j] && f.keys[k] < f.keys[j])) j = k;
    while (f.bucket_of_block[order[j][next[j]]] >= 0) ++next[j];
    const uint32_t b = order[j][next[j]];
    f.bucket_of_block[b] = static_cast<int>(j);
    f.cost[j] += cost[b * w + j];
    f.keys[j] += keys[b];
  }
  return f;
}

namespace {

// Per block, its accesses by each node's batches (a batch reading two keys of a PIB reads
// the PIB once); per node and batch, the keys read (for the remote counts).
struct Accesses {
  std::vector<uint32_t> block_of_key;
  std::vector<uint32_t> block_keys;         // per block: its size
  std::vector<uint32_t> by;                 // [block * nodes + node]: accesses
  std::vector<std::vector<uint32_t>> keys;  // per node: every key read, once per batch
};

Accesses count_accesses(const DrpsPartitionInput& in, size_t parameters, size_t nodes) {
  Accesses a;
  a.block_of_key.assign(parameters, UINT32_MAX);
  for (size_t p = 0; p < in.pibs.size(); ++p) {
    for (uint32_t k : in.pibs[p]) a.block_of_key.at(k) = static_cast<uint32_t>(p);
    a.block_keys.push_back(static_cast<uint32_t>(in.pibs[p].size()));
  }
  for (uint32_t& b : a.block_of_key)
    if (b == UINT32_MAX) {
      b = static_cast<uint32_t>(a.block_keys.size());
      a.block_keys.push_back(1);
    }
  a.by.assign(a.block_keys.size() * nodes, 0);
  a.keys.resize(nodes);
  std::vector<int64_t> seen(a.block_keys.size(), -1);  // the batch that last read a block
  int64_t batch = 0;
  for (size_t w = 0; w < in.worker_nodes.size(); ++w) {
    const auto node = static_cast<size_t>(in.worker_nodes[w]);
    const auto job = make_local_workers(in.job, static_cast<int>(w), in.workers_per_node);
    for (int c = 0; c < in.clocks; ++c, ++batch) {
      const auto keys = job->keys_for(static_cast<uint64_t>(c));
      if (keys.empty()) throw std::invalid_argument("--partition: the job reads every key (dense)");
      for (uint32_t k : keys) {
        const uint32_t b = a.block_of_key[k];
        if (seen[b] != batch) ++a.by[b * nodes + node];
        seen[b] = batch;
      }
      a.keys[node].insert(a.keys[node].end(), keys.begin(), keys.end());
    }
  }
  return a;
}

}  // namespace

DrpsPartition plan_drps_partition(const DrpsPartitionInput& in) {
  const auto start = std::chrono::steady_clock::now();
  const int shards = static_cast<int>(in.server_nodes.size());
  if (shards < 1 || shards > 255)
    throw std::invalid_argument("--partition: 1-255 server shards (one byte per key)");
  const size_t parameters = make_job(in.job, 0)->parameters();
  size_t nodes = 0;
  for (int n : in.worker_nodes) nodes = std::max(nodes, static_cast<size_t>(n) + 1);
  for (int n : in.server_nodes) nodes = std::max(nodes, static_cast<size_t>(n) + 1);
  const Accesses a = count_accesses(in, parameters, nodes);

  // Fig. 6's matrix A, block by shard.
  const size_t w = static_cast<size_t>(shards), blocks = a.block_keys.size();
  std::vector<double> cost(blocks * w);
  for (size_t b = 0; b < blocks; ++b) {
    uint64_t total = 0;
    for (size_t n = 0; n < nodes; ++n) total += a.by[b * nodes + n];
    const double size = a.block_keys[b];
    const double disk =
        static_cast<double>(total) * (in.disk.seek_s + size * in.disk.per_parameter_s);
    for (size_t j = 0; j < w; ++j) {
      const uint64_t local = a.by[b * nodes + static_cast<size_t>(in.server_nodes[j])];
      cost[b * w + j] = disk + in.net_per_parameter_s * size * static_cast<double>(total - local);
    }
  }
  DrpsPartition r;
  r.blocks = blocks;
  r.fill = fill_buckets(cost, a.block_keys, shards);
  r.shard_of_key.resize(parameters);
  for (size_t k = 0; k < parameters; ++k)
    r.shard_of_key[k] = static_cast<uint8_t>(r.fill.bucket_of_block[a.block_of_key[k]]);

  // The model's remote counts: the same batches against both placements.
  const std::vector<KeyRange> ranges = split_keys(parameters, shards);
  const auto contiguous = [&](uint32_t k) {
    return static_cast<size_t>(std::find_if(ranges.begin(), ranges.end(),
                                            [&](const KeyRange& x) { return x.contains(k); }) -
                               ranges.begin());
  };
  for (size_t n = 0; n < nodes; ++n)
    for (uint32_t k : a.keys[n]) {
      ++r.pulled;
      r.remote_before += in.server_nodes[contiguous(k)] != static_cast<int>(n);
      r.remote_after += in.server_nodes[r.shard_of_key[k]] != static_cast<int>(n);
    }
  r.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

nlohmann::json DrpsPartition::to_json() const {
  const auto share = [&](uint64_t n) { return pulled ? static_cast<double>(n) / pulled : 0.0; };
  return {{"blocks", blocks},
          {"build_s", build_s},
          {"shard_keys", fill.keys},
          {"shard_cost_s", fill.cost},
          {"modelled_pulled", pulled},
          {"modelled_remote_share_contiguous", share(remote_before)},
          {"modelled_remote_share", share(remote_after)},
          {"choices",
           {{"accesses", "every worker's batches of the run (Alg. 2, from the local data)"},
            {"ties", "the bucket with fewer keys, then the lower index"},
            {"net_cost", "16 bytes per parameter (pull and push) at the lab's mean rate"}}}};
}

}  // namespace testbed
