// One chunk of a tree-aggregated gradient on the wire: sent up the tree towards the root,
// or the aggregate sent back down. The tree aggregator produces and consumes them; the wire
// format carries them. It lives here, below both, so the transport never includes a protocol.
#pragma once

#include <cstdint>
#include <vector>

namespace testbed {

struct ChunkMessage {
  enum class Kind : uint8_t { kUp, kDown };
  Kind kind = Kind::kUp;
  uint64_t iteration = 0;
  uint32_t chunk = 0;
  int from = 0, to = 0;
  std::vector<float> data;
};

}  // namespace testbed
