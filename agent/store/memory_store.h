// The parameter store in memory: the fake behind the block layer's tests, and the
// in-memory server the disk-resident one is checked against.
#pragma once

#include <unordered_map>

#include "agent/store/parameter_store.h"

namespace testbed {

class MemoryStore : public ParameterStore {
 public:
  std::optional<std::vector<float>> read(uint32_t block) override;
  void write(uint32_t block, const std::vector<float>& values) override;
  void write_all(const std::vector<std::pair<uint32_t, std::vector<float>>>& blocks) override;
  StoreCounters counters() const override { return counters_; }

 private:
  std::unordered_map<uint32_t, std::vector<float>> blocks_;
  StoreCounters counters_;
};

}  // namespace testbed
