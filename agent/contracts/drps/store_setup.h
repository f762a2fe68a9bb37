// DRPS's part of an agent's setup (TrainingSetup::store): each shard's values on disk, in a
// RocksDB store of its own under `dir`, with the memory it may keep and the parameter index
// blocks (PIBs, Sec. 4) it stores whole. Filled by the controller's DiskStoreRun
// (controller/runs/drps/), read by the agents' DiskStorePolicy (agent/protocols/drps/).
// Where the shards' keys are placed (DRPS's partition, Sec. 5) is not the store's: it is
// TrainingSetup::key_partition, which the parameter server's core reads.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace testbed {

class FieldReader;

struct StoreSetup {
  std::string dir;  // absolute; shard N's store is dir/shard-N, made fresh for the run
  uint64_t memory_budget_bytes = 0;  // what a shard's store may keep in memory
  // Reads past the page cache (O_DIRECT), so a budget below the model is felt as disk
  // reads, as on the paper's machines (agent/store/rocks_store.h).
  bool direct_reads = true;
  std::vector<std::vector<uint32_t>> pibs;  // each PIB's keys, in the job's numbering
  bool operator==(const StoreSetup&) const = default;
};

nlohmann::json to_json(const StoreSetup& s);
// Throws ContractError naming the field.
StoreSetup store_setup_from(const FieldReader& r);

}  // namespace testbed
