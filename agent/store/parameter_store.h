// Where a disk-resident server shard keeps its parameters (DRPS, Sec. 3): a key-value
// store of blocks, each block one key holding the values of one parameter index block
// (PIB, Sec. 4) in the layout's order. A block is read and written whole, which is what
// makes a PIB pay: one seek for all of its parameters.
//
// Implementations: MemoryStore (tests, and the in-memory baseline) and RocksStore (an
// on-disk RocksDB with direct reads and a capped block cache, so reads reach the disk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace testbed {

// What the store did, cumulative since it was opened. Disk figures come from the store's
// own statistics (0 for MemoryStore).
struct StoreCounters {
  uint64_t block_reads = 0;   // read() calls
  uint64_t block_writes = 0;  // write() calls
  uint64_t disk_reads = 0;    // reads that missed the block cache and went to a file
  uint64_t disk_read_bytes = 0;
  uint64_t disk_write_bytes = 0;  // flushes and compactions included
};

class ParameterStore {
 public:
  virtual ~ParameterStore() = default;
  // The values of block `block`, or nothing when it was never written.
  virtual std::optional<std::vector<float>> read(uint32_t block) = 0;
  virtual void write(uint32_t block, const std::vector<float>& values) = 0;
  // Many blocks in one atomic batch (loading the initial model).
  virtual void write_all(const std::vector<std::pair<uint32_t, std::vector<float>>>& blocks) = 0;
  virtual StoreCounters counters() const = 0;
};

}  // namespace testbed
