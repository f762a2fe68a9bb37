// NetStorm's scheduler for an aware strategy (Sec. V, Alg. 2): link samples reported by the
// nodes become throughput estimates once PROBE_CHUNK_NUM of them are in, and every
// UPDATE_TIME the multi-root FAPT is rebuilt for the roots chosen at the start, as a new
// policy version. Nodes switch to it at the next iteration boundary.
#pragma once

#include <chrono>
#include <map>
#include <optional>

#include "agent/contracts/tree_messages.h"
#include "agent/protocols/tree/sync_policy.h"

namespace testbed {

class PassiveAwareness {
 public:
  using Clock = std::chrono::steady_clock;
  // `first` is the run's first policy: its roots are kept (Alg. 2 fixes them once chosen).
  PassiveAwareness(const SyncPolicy& first, double update_time_s,
                   Clock::time_point now = Clock::now());

  // Folds the samples node `to` reported (its IterationDone's, by sending neighbour) into
  // `graph`.
  void add_samples(int to, const std::map<size_t, LinkSample>& samples, ThroughputGraph& graph);
  // The next policy version when UPDATE_TIME has passed since the last one, else nullopt.
  std::optional<SyncPolicy> maybe_rebuild(const ThroughputGraph& graph, const SyncPolicy& current,
                                          Clock::time_point now = Clock::now());

 private:
  struct Accumulated {
    double bytes = 0, seconds = 0;
    uint64_t count = 0;
  };
  std::vector<int> roots_;
  double update_time_s_;
  Clock::time_point last_update_;
  std::map<std::pair<int, int>, Accumulated> samples_;  // (from, to)
};

}  // namespace testbed
