// DRPS's own sections of a parameter-server node's final "stats" (ps_node_report.h holds
// the core's): what a disk-resident shard's store did ("store", inside the shard's role's
// section) and what WSP's master chose ("wsp_master", at the top of its node's report).
// The agent's DiskStorePolicy and WspPolicy (agent/protocols/drps/) write them; the
// controller's DiskStoreRun and WspRun (controller/runs/drps/) and its check of agents'
// replies read them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

// A shard's RocksDB store over the run, its initial load left out (Sec. 4's disk costs).
struct StoreSection {
  uint64_t blocks = 0;  // the blocks the shard's keys are stored in
  uint64_t block_reads = 0, block_writes = 0;
  uint64_t disk_reads = 0;  // reads that missed the block cache
  uint64_t disk_read_bytes = 0, disk_write_bytes = 0;

  // The run's stores summed: every counter, the blocks too (each shard holds its own).
  StoreSection& operator+=(const StoreSection& o);
};

// One wait the master chose (agent/protocols/drps/wsp_selector.h's WspWait), its worker
// named by the lab's node index.
struct WspWaitRecord {
  uint64_t worker = 0;  // the worker's node
  uint64_t clock = 0;
  double estimated_s = 0, realized_s = 0;
  bool forced = false;  // answering at once would have passed delta
};

// The master's counters (WspCounters) and the first waits it logged.
struct WspMasterSection {
  uint64_t choices = 0, waited = 0, bound_forced = 0, held = 0;
  double expected_wait_s = 0, realized_wait_s = 0;
  std::vector<WspWaitRecord> waits;
};

struct DrpsReport {
  std::string role;  // the shard's role ("server" or "replica") when it has a store
  std::optional<StoreSection> store;
  std::optional<WspMasterSection> wsp_master;
};

void to_json(nlohmann::json& j, const StoreSection& s);
void to_json(nlohmann::json& j, const WspMasterSection& m);

// Adds the store's section to a shard's (its role's section of the report), and the
// master's to its node's report.
void write_store_section(nlohmann::json& shard, const StoreSection& s);
void write_wsp_master_section(nlohmann::json& report, const WspMasterSection& m);
// Reads DRPS's sections of a final "stats" (both empty in another system's); throws
// ContractError naming a field that is missing, of the wrong type or out of range. A
// wait's worker must be one of the lab's `nodes`.
DrpsReport drps_report_from(const nlohmann::json& report, size_t nodes);

}  // namespace testbed
