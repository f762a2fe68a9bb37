// One parameter-server shard as a pure state machine: it is given pushes and pulls, and
// returns the replies it can send now. The transport is separate, so every consistency
// model is tested in memory with any arrival order (ps-lite keeps its KVServer apart from
// the van the same way).
//
// A worker pushes its update of clock c (computed from parameters that reflected every
// worker's updates up to read_min_clock), then pulls the parameters of clock c+1. The
// shard's clock of a worker is the number of its pushes; min_clock is the smallest.
//
// Under WSP the job's master (drps/wsp_selector.h) decides when a read may go; it tells
// every shard with a grant naming the pushes of each worker the read must reflect, and
// the shard answers once the grant is in, those pushes are applied, and delta holds.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "agent/protocols/ps/consistency.h"
#include "agent/protocols/ps/shard_values.h"

namespace testbed {

struct PullReply {
  int worker = 0;
  uint64_t clock = 0;
  uint64_t min_clock = 0;      // what the values reflect: every update of clocks below it
  bool dense = false;          // values of the whole range, keys left out
  bool latest = false;         // answers a pull for the latest values
  std::vector<uint32_t> keys;  // global keys, as asked
  std::vector<float> values;
};

class ServerShard {
 public:
  // Values in memory, starting at `initial`.
  ServerShard(KeyRange range, int workers, Consistency model, std::vector<float> initial);
  // Values where `values` keeps them (a disk-resident store), already initialised.
  ServerShard(KeyRange range, int workers, Consistency model, std::unique_ptr<ShardValues> values);

  // `keys` are global and inside the range; with dense, values cover the whole range.
  // `now_ns` stamps when the update was applied (for the recorded clocks).
  std::vector<PullReply> push(int worker, uint64_t clock, uint64_t read_min_clock, bool dense,
                              const std::vector<uint32_t>& keys, const std::vector<float>& values,
                              int64_t now_ns);
  // MLfabric: an update, or an aggregator's sum of `places` updates, in the scheduler's
  // order (ordered_pushes.h has checked it); workers' clocks are the scheduler's business
  // there, so none is checked. Async (MLfabric-A) applies each at once; BSP (MLfabric-S)
  // sums a clock's W places and applies them together, advancing every worker's clock.
  std::vector<PullReply> push_ordered(uint64_t places, bool dense,
                                      const std::vector<uint32_t>& keys,
                                      const std::vector<float>& values);
  // MLfabric's failover: a replica promoted to server never applies `places` the dead
  // server had ordered; its version counts them anyway, so that versions stay the
  // scheduler's place numbers (its deadlines count in them).
  void count_lost(uint64_t places) { applied_ += places; }
  // latest: answer now with what is applied, whatever the model (evaluation at the end).
  std::vector<PullReply> pull(int worker, uint64_t clock, bool dense, std::vector<uint32_t> keys,
                              bool latest = false);
  // wsp: the master let `worker` read clock `clock` once `need[l]` pushes of each worker l
  // are applied here. Throws std::invalid_argument for a grant that names no worker or
  // not every worker (a peer's malformed message).
  std::vector<PullReply> grant(int worker, uint64_t clock, const std::vector<uint64_t>& need);

  uint64_t min_clock() const;
  std::vector<float> values() const { return values_->read_all(); }
  KeyRange range() const { return range_; }
  uint64_t updates_applied() const { return applied_; }
  // Staleness of applied updates, in clocks: clock - read_min_clock.
  const std::map<uint64_t, uint64_t>& staleness_histogram() const { return staleness_; }
  // applied_ns()[worker][clock]: when that update took effect here.
  const std::vector<std::vector<int64_t>>& applied_ns() const { return applied_ns_; }

 private:
  struct Pending {
    int worker;
    uint64_t clock;
    bool dense;
    std::vector<uint32_t> keys;
  };
  void add(bool dense, const std::vector<uint32_t>& keys, const std::vector<float>& values);
  void apply_clock_sum();  // bsp: the clock's summed updates take effect
  PullReply answer(const Pending& p);
  bool may_answer(const Pending& p) const;
  std::vector<PullReply> release();

  KeyRange range_;
  int workers_;
  Consistency model_;
  std::unique_ptr<ShardValues> values_;
  std::vector<uint64_t> clock_;  // per worker: pushes received
  uint64_t applied_ = 0;
  std::map<uint64_t, uint64_t> staleness_;
  std::vector<std::vector<int64_t>> applied_ns_;
  // bsp: the clock's updates, summed in double precision as the single-process reference
  // does, applied when the last worker's arrives, to the keys they touched (a
  // disk-resident shard then reads and writes only those blocks).
  std::vector<double> bsp_sum_;
  std::vector<char> bsp_touched_;
  std::vector<uint32_t> bsp_touched_list_;
  std::vector<std::pair<int, uint64_t>> bsp_waiting_;  // (worker, clock) summed, not applied
  uint64_t bsp_places_ = 0;  // ordered places of the clock summed so far (MLfabric-S)
  std::vector<Pending> pending_;
  struct Grant {
    uint64_t clock;
    std::vector<uint64_t> need;
  };
  std::vector<std::optional<Grant>> grants_;  // wsp: per worker, its next read's grant
};

}  // namespace testbed
