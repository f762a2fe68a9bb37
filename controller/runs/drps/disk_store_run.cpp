// DRPS's policies of a parameter-server session (disk_store_run.h).
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <ostream>

#include "agent/contracts/drps/drps_report.h"
#include "agent/contracts/node_replies.h"
#include "controller/options/usage_error.h"
#include "controller/runs/drps/disk_store_run.h"
#include "controller/training/drps/disk_store_options.h"
#include "controller/training/drps/drps_index.h"
#include "controller/training/drps/drps_partition.h"
#include "controller/training/drps/wsp_summary.h"

namespace testbed {

std::unique_ptr<PsRunPolicy> make_disk_store_run(PsRun& run) {
  if (run.options().store != "disk") return nullptr;
  return std::make_unique<DiskStoreRun>(run);
}

std::unique_ptr<PsRunPolicy> make_wsp_run(PsRun& run) {
  if (run.options().consistency != "wsp") return nullptr;
  return std::make_unique<WspRun>(run);
}

void DiskStoreRun::setup(TrainingSetup& setup, const JobConfig& job, size_t) {
  // Each shard in a RocksDB store of its own under the lab's directory (removed with the
  // lab), with the budget of memory it may keep parameters in.
  const DiskStoreKnobs k = disk_store_knobs(o_.policy);
  StoreSetup store;
  store.dir = o_.store_dir;
  store.memory_budget_bytes = static_cast<uint64_t>(k.memory_budget_mb) << 20;
  DrpsIndexOptions io;
  io.prune_share = k.index_prune;
  io.index.top_k = k.index_k;
  io.split_at_ranges = !k.partition;  // the partition places whole PIBs
  std::vector<std::vector<uint32_t>> pibs;
  if (k.index) {
    const DrpsIndex index = plan_drps_index(job, static_cast<int>(run_.servers().size()), io);
    store.pibs = pibs = index.pibs;
    index_ = index.to_json();
    run_.progress() << "index: " << index.pibs.size() << " parameter index blocks of "
                    << index_["keys_in_pibs"] << " keys, built in " << index.build_s << " s\n";
  }
  if (k.partition) setup.key_partition = partition(job, pibs, io.index);
  setup.store = std::move(store);
}

std::string DiskStoreRun::partition(const JobConfig& job,
                                    const std::vector<std::vector<uint32_t>>& pibs,
                                    const IndexOptions& disk) {
  const std::vector<int>& servers = run_.servers();
  DrpsPartitionInput in{job, o_.workers_per_dc, run_.worker_nodes(), servers, o_.iterations, pibs,
                        disk};
  // t_net: a parameter's 16 bytes on the wire at the lab's mean configured rate.
  double bps = 0;
  const std::vector<LiveDirection>& directions = run_.directions();
  for (const auto& d : directions) bps += static_cast<double>(d.params.rate.bits_per_s);
  if (directions.empty() || bps <= 0) throw UsageError("--partition: the lab has no links");
  in.net_per_parameter_s = 16 * 8 / (bps / static_cast<double>(directions.size()));
  DrpsPartition p;
  try {
    p = plan_drps_partition(in);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  partition_ = p.to_json();
  partition_map_.emplace(p.shard_of_key, static_cast<int>(servers.size()));
  const std::string path = o_.store_dir + "/partition.bin";
  std::filesystem::create_directories(o_.store_dir);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(p.shard_of_key.data()),
            static_cast<std::streamsize>(p.shard_of_key.size()));
  if (!out.flush()) throw std::runtime_error("writing " + path + " failed");
  run_.progress() << "partition: " << p.blocks << " blocks over " << servers.size() << " shards in "
                  << std::fixed << std::setprecision(2) << p.build_s
                  << " s; modelled remote share of pulls " << std::setprecision(3)
                  << partition_["modelled_remote_share_contiguous"].get<double>() << " -> "
                  << partition_["modelled_remote_share"].get<double>() << "\n";
  return path;
}

// The shards' stores together, the initial load left out (each shard's own is in "shards").
// The reports arrived checked (agent_reply.h): read by their contract.
void DiskStoreRun::summary(nlohmann::json& s) const {
  StoreSection store;
  for (const auto& st : run_.node_stats())
    if (is_final_report(st))
      if (const DrpsReport r = drps_report_from(st, run_.names().size()); r.store)
        store += *r.store;
  s["store"].update(nlohmann::json(store));
  s["store"]["memory_budget_mb"] = disk_store_knobs(o_.policy).memory_budget_mb;
  s["store"]["index"] = index_.is_null() ? nlohmann::json("off") : index_;
  s["store"]["partition"] = partition_.is_null() ? nlohmann::json("off") : partition_;
  // Each shard's own store, beside the session's figures of that shard.
  for (size_t n = 0; n < run_.node_stats().size(); ++n) {
    const std::string& name = run_.names()[n];
    if (!s["shards"].contains(name)) continue;
    if (const DrpsReport d = drps_report_from(run_.node_stats()[n], run_.names().size()); d.store)
      s["shards"][name]["store"] = *d.store;
  }
}

void WspRun::summary(nlohmann::json& s) const {
  const std::vector<nlohmann::json>& stats = run_.node_stats();
  for (size_t n = 0; n < stats.size(); ++n) {
    if (!is_final_report(stats[n])) continue;
    const DrpsReport r = drps_report_from(stats[n], run_.names().size());
    if (r.wsp_master)
      s["wsp"] = wsp_summary(*r.wsp_master, run_.names()[n], run_.options().staleness);
  }
}

}  // namespace testbed
