// The disk-resident servers' part of a parameter-server session (DRPS): each shard's
// store, the parameter index (Sec. 4) and the partition (Sec. 5) computed before the
// agents start, and what they are reported as.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>

#include "controller/options/usage_error.h"
#include "controller/runs/ps/ps_session.h"
#include "controller/training/drps/drps_index.h"
#include "controller/training/drps/drps_partition.h"

namespace testbed {

nlohmann::json PsSession::store_setup(const JobConfig& job, const std::vector<int>& workers) {
  // Each shard in a RocksDB store of its own under the lab's directory (removed with the
  // lab), with the budget of memory it may keep parameters in.
  nlohmann::json store = {{"dir", o_.store_dir},
                          {"memory_budget_bytes", static_cast<size_t>(o_.memory_budget_mb) << 20}};
  DrpsIndexOptions io;
  io.prune_share = o_.index_prune;
  io.index.top_k = o_.index_k;
  io.split_at_ranges = !o_.partition;  // the partition places whole PIBs
  std::vector<std::vector<uint32_t>> pibs;
  if (o_.index) {
    const DrpsIndex index = plan_drps_index(job, static_cast<int>(servers_.size()), io);
    store["pibs"] = pibs = index.pibs;
    index_ = index.to_json();
    progress_ << "index: " << index.pibs.size() << " parameter index blocks of "
              << index_["keys_in_pibs"] << " keys, built in " << index.build_s << " s\n";
  }
  if (o_.partition) store["partition"] = partition(job, workers, pibs, io.index);
  return store;
}

// DRPS's partition (Alg. 3) of the job's blocks over the shards, written where the agents
// read it (a byte per key: too large for the setup message); returns the file's path.
std::string PsSession::partition(const JobConfig& job, const std::vector<int>& workers,
                                 const std::vector<std::vector<uint32_t>>& pibs,
                                 const IndexOptions& disk) {
  DrpsPartitionInput in{job, o_.workers_per_dc, workers, servers_, o_.iterations, pibs, disk};
  // t_net: a parameter's 16 bytes on the wire at the lab's mean configured rate.
  double bps = 0;
  for (const auto& d : directions_) bps += static_cast<double>(d.params.rate.bits_per_s);
  if (directions_.empty() || bps <= 0) throw UsageError("--partition: the lab has no links");
  in.net_per_parameter_s = 16 * 8 / (bps / static_cast<double>(directions_.size()));
  DrpsPartition p;
  try {
    p = plan_drps_partition(in);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  partition_ = p.to_json();
  partition_map_.emplace(p.shard_of_key, static_cast<int>(servers_.size()));
  const std::string path = o_.store_dir + "/partition.bin";
  std::filesystem::create_directories(o_.store_dir);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(p.shard_of_key.data()),
            static_cast<std::streamsize>(p.shard_of_key.size()));
  if (!out.flush()) throw std::runtime_error("writing " + path + " failed");
  progress_ << "partition: " << p.blocks << " blocks over " << servers_.size() << " shards in "
            << std::fixed << std::setprecision(2) << p.build_s
            << " s; modelled remote share of pulls " << std::setprecision(3)
            << partition_["modelled_remote_share_contiguous"].get<double>() << " -> "
            << partition_["modelled_remote_share"].get<double>() << "\n";
  return path;
}

}  // namespace testbed
