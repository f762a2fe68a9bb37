#include "agent/store/block_layout.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace testbed {

BlockLayout::BlockLayout(uint32_t begin, uint32_t end,
                         const std::vector<std::vector<uint32_t>>& pibs)
    : begin_(begin) {
  constexpr uint32_t kUnplaced = std::numeric_limits<uint32_t>::max();
  block_.assign(end - begin, kUnplaced);
  offset_.assign(end - begin, 0);
  for (const auto& pib : pibs) {
    if (pib.empty()) throw std::invalid_argument("block layout: an empty parameter index block");
    const auto block = static_cast<uint32_t>(keys_.size());
    for (uint32_t at = 0; at < pib.size(); ++at) {
      const uint32_t key = pib[at];
      if (key < begin || key >= end)
        throw std::invalid_argument("block layout: key " + std::to_string(key) +
                                    " is outside the shard's range [" + std::to_string(begin) +
                                    ", " + std::to_string(end) + ")");
      if (block_[key - begin] != kUnplaced)
        throw std::invalid_argument("block layout: key " + std::to_string(key) +
                                    " is in two parameter index blocks");
      block_[key - begin] = block;
      offset_[key - begin] = at;
    }
    keys_.push_back(pib);
  }
  for (uint32_t key = begin; key < end; ++key) {
    if (block_[key - begin] != kUnplaced) continue;
    block_[key - begin] = static_cast<uint32_t>(keys_.size());
    keys_.push_back({key});
  }
}

std::vector<uint32_t> BlockLayout::blocks_for(const std::vector<uint32_t>& keys) const {
  std::vector<uint32_t> out;
  out.reserve(keys.size());
  for (uint32_t key : keys) out.push_back(block_of(key));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace testbed
