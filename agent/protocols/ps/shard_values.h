// Where a server shard's parameter values live: in memory (MemoryShardValues, the
// default) or in a disk-resident store (StoredShardValues in store/, DRPS). The shard's
// logic (consistency, BSP's summed clock) is the same over both, and so is the float
// arithmetic of every addition, so a BSP run on disk equals one in memory exactly.
// Offsets are within the shard's range (key - range.begin).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace testbed {

class ShardValues {
 public:
  virtual ~ShardValues() = default;
  virtual size_t size() const = 0;
  // The values at `offsets`, in their order.
  virtual std::vector<float> read(const std::vector<uint32_t>& offsets) = 0;
  virtual std::vector<float> read_all() = 0;
  // value[offsets[i]] += deltas[i], in float, in the order given.
  virtual void add(const std::vector<uint32_t>& offsets, const std::vector<float>& deltas) = 0;
};

class MemoryShardValues : public ShardValues {
 public:
  explicit MemoryShardValues(std::vector<float> values) : values_(std::move(values)) {}
  size_t size() const override { return values_.size(); }
  std::vector<float> read(const std::vector<uint32_t>& offsets) override {
    std::vector<float> out;
    out.reserve(offsets.size());
    for (uint32_t at : offsets) out.push_back(values_[at]);
    return out;
  }
  std::vector<float> read_all() override { return values_; }
  void add(const std::vector<uint32_t>& offsets, const std::vector<float>& deltas) override {
    for (size_t i = 0; i < offsets.size(); ++i) values_[offsets[i]] += deltas[i];
  }

 private:
  std::vector<float> values_;
};

}  // namespace testbed
