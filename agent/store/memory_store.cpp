#include "agent/store/memory_store.h"

namespace testbed {

std::optional<std::vector<float>> MemoryStore::read(uint32_t block) {
  ++counters_.block_reads;
  const auto it = blocks_.find(block);
  if (it == blocks_.end()) return std::nullopt;
  return it->second;
}

void MemoryStore::write(uint32_t block, const std::vector<float>& values) {
  ++counters_.block_writes;
  blocks_[block] = values;
}

void MemoryStore::write_all(const std::vector<std::pair<uint32_t, std::vector<float>>>& blocks) {
  for (const auto& [block, values] : blocks) write(block, values);
}

}  // namespace testbed
