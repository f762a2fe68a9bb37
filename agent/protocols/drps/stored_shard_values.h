// A server shard's values in a disk-resident store (DRPS): blocks of a BlockLayout in a
// ParameterStore, read and written back block by block. Construction loads every block
// from the job's initial values, so the store starts where an in-memory shard does.
#pragma once

#include <functional>
#include <memory>

#include "agent/protocols/ps/shard_values.h"
#include "agent/store/blocked_parameters.h"
#include "agent/store/parameter_store.h"

namespace testbed {

class StoredShardValues : public ShardValues {
 public:
  // Keys [begin, end); `pibs` (global keys) become blocks, every other key its own.
  StoredShardValues(std::unique_ptr<ParameterStore> store, uint32_t begin, uint32_t end,
                    const std::vector<std::vector<uint32_t>>& pibs,
                    const std::function<float(uint32_t)>& initial);

  size_t size() const override { return size_; }
  std::vector<float> read(const std::vector<uint32_t>& offsets) override;
  std::vector<float> read_all() override;
  void add(const std::vector<uint32_t>& offsets, const std::vector<float>& deltas) override;

  StoreCounters counters() const { return store_->counters(); }
  size_t blocks() const { return parameters_.layout().blocks(); }

 private:
  std::vector<uint32_t> keys_of(const std::vector<uint32_t>& offsets) const;

  std::unique_ptr<ParameterStore> store_;
  uint32_t begin_;
  size_t size_;
  BlockedParameters parameters_;
};

}  // namespace testbed
