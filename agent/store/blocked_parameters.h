// A server shard's parameters as DRPS keeps them: in a ParameterStore, by blocks of a
// BlockLayout. Reading keys reads every block they fall in, once; adding deltas reads
// those blocks, adds and writes them back (DRPS, Sec. 3: "reads the parameters before
// updating, and writes the parameters back after updating"). So the store's counters are
// the shard's disk I/O, and a PIB that groups co-accessed keys saves seeks.
#pragma once

#include <functional>

#include "agent/store/block_layout.h"
#include "agent/store/parameter_store.h"

namespace testbed {

class BlockedParameters {
 public:
  // `store` outlives this object.
  BlockedParameters(ParameterStore& store, BlockLayout layout);

  // Writes every block from `initial(key)`, in one batch (the server's start).
  void load(const std::function<float(uint32_t)>& initial);
  // The values of `keys` (inside the layout's range), in their order. Throws
  // std::runtime_error for a block the store does not hold (never loaded).
  std::vector<float> read(const std::vector<uint32_t>& keys);
  // values[key] += deltas[i] for keys[i], block by block (keys sorted or not).
  void add(const std::vector<uint32_t>& keys, const std::vector<float>& deltas);

  const BlockLayout& layout() const { return layout_; }

 private:
  std::vector<float> block(uint32_t id);

  ParameterStore& store_;
  BlockLayout layout_;
};

}  // namespace testbed
