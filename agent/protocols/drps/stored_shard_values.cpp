#include "agent/protocols/drps/stored_shard_values.h"

#include <numeric>

namespace testbed {

StoredShardValues::StoredShardValues(std::unique_ptr<ParameterStore> store, uint32_t begin,
                                     uint32_t end, const std::vector<std::vector<uint32_t>>& pibs,
                                     const std::function<float(uint32_t)>& initial)
    : store_(std::move(store)),
      begin_(begin),
      size_(end - begin),
      parameters_(*store_, BlockLayout(begin, end, pibs)) {
  parameters_.load(initial);
}

std::vector<uint32_t> StoredShardValues::keys_of(const std::vector<uint32_t>& offsets) const {
  std::vector<uint32_t> keys;
  keys.reserve(offsets.size());
  for (uint32_t at : offsets) keys.push_back(begin_ + at);
  return keys;
}

std::vector<float> StoredShardValues::read(const std::vector<uint32_t>& offsets) {
  return parameters_.read(keys_of(offsets));
}

std::vector<float> StoredShardValues::read_all() {
  std::vector<uint32_t> offsets(size_);
  std::iota(offsets.begin(), offsets.end(), 0u);
  return read(offsets);
}

void StoredShardValues::add(const std::vector<uint32_t>& offsets,
                            const std::vector<float>& deltas) {
  parameters_.add(keys_of(offsets), deltas);
}

}  // namespace testbed
