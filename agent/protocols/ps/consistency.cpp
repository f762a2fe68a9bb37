#include "agent/protocols/ps/consistency.h"

#include <stdexcept>

namespace testbed {

uint64_t Consistency::required_min_clock(uint64_t clock) const {
  switch (kind) {
    case Kind::kBsp:
      return clock;
    case Kind::kSsp:
    case Kind::kWsp:
      return clock > static_cast<uint64_t>(staleness) ? clock - static_cast<uint64_t>(staleness)
                                                      : 0;
    case Kind::kAsync:
      break;
  }
  return 0;
}

Consistency consistency_from(const std::string& name, int staleness) {
  if (staleness < 0) throw std::invalid_argument("staleness must not be negative");
  if (name == "bsp") return {Consistency::Kind::kBsp, 0};
  if (name == "ssp") return {Consistency::Kind::kSsp, staleness};
  if (name == "async") return {Consistency::Kind::kAsync, 0};
  if (name == "wsp") return {Consistency::Kind::kWsp, staleness};
  throw std::invalid_argument("unknown consistency model '" + name + "' (bsp, ssp, async, wsp)");
}

std::string to_string(const Consistency& c) {
  switch (c.kind) {
    case Consistency::Kind::kBsp:
      return "bsp";
    case Consistency::Kind::kSsp:
      return "ssp(" + std::to_string(c.staleness) + ")";
    case Consistency::Kind::kWsp:
      return "wsp(" + std::to_string(c.staleness) + ")";
    case Consistency::Kind::kAsync:
      break;
  }
  return "async";
}

std::vector<KeyRange> split_keys(size_t keys, int shards) {
  if (shards < 1) throw std::invalid_argument("at least one server shard");
  std::vector<KeyRange> out;
  const size_t base = keys / static_cast<size_t>(shards),
               extra = keys % static_cast<size_t>(shards);
  size_t at = 0;
  for (size_t s = 0; s < static_cast<size_t>(shards); ++s) {
    const size_t n = base + (s < extra ? 1 : 0);
    out.push_back({static_cast<uint32_t>(at), static_cast<uint32_t>(at + n)});
    at += n;
  }
  return out;
}

}  // namespace testbed
