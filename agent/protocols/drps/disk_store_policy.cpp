#include "agent/protocols/drps/disk_store_policy.h"

#include <filesystem>
#include <stdexcept>
#include <string>

#include "agent/contracts/drps/drps_report.h"

#include "agent/store/rocks_store.h"

namespace testbed {

std::unique_ptr<PsPolicy> make_disk_store_policy(const TrainingSetup& setup, PsCore& core) {
  if (!setup.store) return nullptr;
  return std::make_unique<DiskStorePolicy>(*setup.store, core);
}

// PIBs come in job keys; a PIB is whole in one shard (split at the ranges, or placed by the
// partition), so a shard takes the PIBs whose first key is its own.
std::unique_ptr<ShardValues> DiskStorePolicy::shard_values(int shard, KeyRange range) {
  RocksStoreOptions o;
  o.memory_budget_bytes = store_.memory_budget_bytes;
  o.direct_reads = store_.direct_reads;
  const std::string dir = store_.dir + "/shard-" + std::to_string(shard);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const KeyMap& keys = core_.keys();
  std::vector<std::vector<uint32_t>> pibs;
  for (auto job_keys : store_.pibs) {
    for (uint32_t k : job_keys)
      if (k >= keys.keys())
        throw std::runtime_error("store: a PIB holds key " + std::to_string(k) +
                                 ", past the model's " + std::to_string(keys.keys()));
    if (keys.shard_of(job_keys.front()) != shard) continue;
    for (uint32_t& k : job_keys) k = keys.to_server(k);
    pibs.push_back(std::move(job_keys));
  }
  auto values = std::make_unique<StoredShardValues>(
      std::make_unique<RocksStore>(dir, o), range.begin, range.end, pibs,
      [this](uint32_t key) { return core_.initial_value(core_.keys().to_job(key)); });
  stored_ = values.get();
  loaded_ = stored_->counters();  // the run's figures leave the initial load out
  return values;
}

// Before the shard's values are read for the report: reading them reads every block.
void DiskStorePolicy::stats(nlohmann::json&, nlohmann::json* shard) const {
  if (!shard || !stored_) return;
  const StoreCounters c = stored_->counters();
  write_store_section(
      *shard,
      {stored_->blocks(), c.block_reads - loaded_.block_reads,
       c.block_writes - loaded_.block_writes, c.disk_reads - loaded_.disk_reads,
       c.disk_read_bytes - loaded_.disk_read_bytes, c.disk_write_bytes - loaded_.disk_write_bytes});
}

}  // namespace testbed
