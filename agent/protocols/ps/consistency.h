// The consistency models of the parameter server, and how its keys are split over shards.
//
//   bsp    every worker's update of clock t is applied, all at once, before any worker
//          reads the parameters of clock t+1;
//   ssp s  each update is applied as it arrives; a worker reading for clock c waits until
//          the slowest worker has pushed clock c-s-1, i.e. has reached clock c-s
//          (Bösen's SSP; s = 0 gives BSP's waiting with incremental application);
//   async  each update is applied as it arrives and every read is answered at once;
//   wsp d  DRPS's worker-selection model: applied as it arrives; a read waits for the
//          workers the gain of waiting picks (wsp_selector.h), and never misses more than
//          d clocks of any worker (SSP's bound).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace testbed {

struct Consistency {
  enum class Kind { kBsp, kSsp, kAsync, kWsp } kind = Kind::kBsp;
  int staleness = 0;  // ssp's bound s and wsp's delta, in clocks
  // The lowest clock every worker must have reached before one reading for `clock` may
  // go on; async never waits (returns 0).
  uint64_t required_min_clock(uint64_t clock) const;
};

// "bsp", "ssp" or "wsp" (with `staleness`), or "async"; throws std::invalid_argument.
Consistency consistency_from(const std::string& name, int staleness);
std::string to_string(const Consistency& c);

struct KeyRange {
  uint32_t begin = 0, end = 0;  // [begin, end)
  bool contains(uint32_t key) const { return key >= begin && key < end; }
  uint32_t size() const { return end - begin; }
};

// [0, keys) in `shards` contiguous ranges whose sizes differ by at most one. Jobs hash
// their keys (sparse-lr) or lay them out evenly (dense models), so ranges balance load.
std::vector<KeyRange> split_keys(size_t keys, int shards);

}  // namespace testbed
