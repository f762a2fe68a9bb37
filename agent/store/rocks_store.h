// The disk-resident parameter store: RocksDB, one key per block (DRPS used LevelDB; we use
// Debian's librocksdb-dev because it can read with O_DIRECT, cap its block cache and
// count its own disk traffic, which is what a figure about disk reads needs; LevelDB can
// do none of the three).
//
// Reads reach the disk: direct reads bypass the page cache, and the block cache, the only
// place blocks stay in memory besides the memtable of recent writes, is capped by the
// memory budget (half of it; the other half bounds the memtables). On a filesystem
// without O_DIRECT, RocksDB's open or read fails and the error names the call; turn
// direct reads off there (tmpfs has O_DIRECT since Linux 6.6: this kernel's works).
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/statistics.h>

#include <memory>
#include <string>

#include "agent/store/parameter_store.h"

namespace testbed {

struct RocksStoreOptions {
  // Memory the store may hold parameters in, in bytes. DRPS's point is a model larger
  // than this: 1 MiB is a quarter of sparse-lr's 2^20 floats at scale 1.
  size_t memory_budget_bytes = 1u << 20;
  bool direct_reads = true;
};

class RocksStore : public ParameterStore {
 public:
  // Opens (creating if missing) the store in `dir`. Throws std::runtime_error naming the
  // RocksDB call and its status.
  RocksStore(const std::string& dir, RocksStoreOptions options = {});
  ~RocksStore() override;
  RocksStore(const RocksStore&) = delete;
  RocksStore& operator=(const RocksStore&) = delete;

  std::optional<std::vector<float>> read(uint32_t block) override;
  void write(uint32_t block, const std::vector<float>& values) override;
  void write_all(const std::vector<std::pair<uint32_t, std::vector<float>>>& blocks) override;
  StoreCounters counters() const override;

 private:
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Statistics> stats_;
  uint64_t block_reads_ = 0, block_writes_ = 0;
};

}  // namespace testbed
