#include "agent/store/rocks_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstring>
#include <stdexcept>

namespace testbed {
namespace {

// Big-endian, so blocks sort by id and a PIB's neighbours share data blocks on disk.
std::string key_of(uint32_t block) {
  const char k[4] = {static_cast<char>(block >> 24), static_cast<char>(block >> 16),
                     static_cast<char>(block >> 8), static_cast<char>(block)};
  return std::string(k, 4);
}

rocksdb::Slice value_of(const std::vector<float>& values) {
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)};
}

void check(const rocksdb::Status& s, const char* call) {
  if (!s.ok()) throw std::runtime_error(std::string("rocksdb ") + call + ": " + s.ToString());
}

}  // namespace

RocksStore::RocksStore(const std::string& dir, RocksStoreOptions options)
    : stats_(rocksdb::CreateDBStatistics()) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.statistics = stats_;
  o.use_direct_reads = options.direct_reads;
  // Half of the budget for the block cache, the other half for two memtables.
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(options.memory_budget_bytes / 2);
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  o.write_buffer_size = options.memory_budget_bytes / 4;
  o.max_write_buffer_number = 2;
  rocksdb::DB* db = nullptr;
  check(rocksdb::DB::Open(o, dir, &db), ("DB::Open " + dir).c_str());
  db_.reset(db);
}

RocksStore::~RocksStore() {
  if (db_) db_->Close().PermitUncheckedError();  // a failed close loses nothing: the WAL has it
}

std::optional<std::vector<float>> RocksStore::read(uint32_t block) {
  ++block_reads_;
  std::string value;
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key_of(block), &value);
  if (s.IsNotFound()) return std::nullopt;
  check(s, "Get");
  if (value.size() % sizeof(float) != 0)
    throw std::runtime_error("rocksdb Get: block " + std::to_string(block) + " holds " +
                             std::to_string(value.size()) + " bytes, not whole floats");
  std::vector<float> out(value.size() / sizeof(float));
  std::memcpy(out.data(), value.data(), value.size());
  return out;
}

void RocksStore::write(uint32_t block, const std::vector<float>& values) {
  ++block_writes_;
  check(db_->Put(rocksdb::WriteOptions(), key_of(block), value_of(values)), "Put");
}

void RocksStore::write_all(const std::vector<std::pair<uint32_t, std::vector<float>>>& blocks) {
  rocksdb::WriteBatch batch;
  for (const auto& [block, values] : blocks) {
    check(batch.Put(key_of(block), value_of(values)), "WriteBatch::Put");
  }
  block_writes_ += blocks.size();
  check(db_->Write(rocksdb::WriteOptions(), &batch), "Write");
}

StoreCounters RocksStore::counters() const {
  StoreCounters c;
  c.block_reads = block_reads_;
  c.block_writes = block_writes_;
  // A data block that missed the cache was read from its file (directly, bypassing the
  // page cache); what the cache took in is what those reads brought (index and filter
  // blocks live in the table readers, not the cache, so they are not counted).
  c.disk_reads = stats_->getTickerCount(rocksdb::BLOCK_CACHE_DATA_MISS);
  c.disk_read_bytes = stats_->getTickerCount(rocksdb::BLOCK_CACHE_BYTES_WRITE);
  c.disk_write_bytes = stats_->getTickerCount(rocksdb::WAL_FILE_BYTES) +
                       stats_->getTickerCount(rocksdb::FLUSH_WRITE_BYTES) +
                       stats_->getTickerCount(rocksdb::COMPACT_WRITE_BYTES);
  return c;
}

}  // namespace testbed
