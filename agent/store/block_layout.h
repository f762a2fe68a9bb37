// Which store block holds each parameter of a shard, and where inside it. Plain DRPS
// stores every parameter as its own key (one block per key); with the index of Sec. 4,
// each parameter index block (PIB) is one key holding its parameters in the order given.
// Pure data: built from a key range and a list of PIBs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace testbed {

class BlockLayout {
 public:
  // Keys [begin, end), each in its own block.
  BlockLayout(uint32_t begin, uint32_t end) : BlockLayout(begin, end, {}) {}
  // The same with `pibs` (disjoint lists of keys inside the range, each at least one key)
  // as blocks; every other key alone. Throws std::invalid_argument for a key outside the
  // range or in two PIBs.
  BlockLayout(uint32_t begin, uint32_t end, const std::vector<std::vector<uint32_t>>& pibs);

  uint32_t block_of(uint32_t key) const { return block_[key - begin_]; }
  uint32_t offset_of(uint32_t key) const { return offset_[key - begin_]; }
  const std::vector<uint32_t>& keys_of(uint32_t block) const { return keys_[block]; }
  size_t blocks() const { return keys_.size(); }
  // The blocks `keys` fall in, sorted and unique.
  std::vector<uint32_t> blocks_for(const std::vector<uint32_t>& keys) const;

 private:
  uint32_t begin_ = 0;
  std::vector<uint32_t> block_, offset_;     // per key of the range
  std::vector<std::vector<uint32_t>> keys_;  // per block, in stored order
};

}  // namespace testbed
