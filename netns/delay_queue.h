// The timing core of the userspace delay line: when each packet of one link direction may
// leave. Pure (time is passed in), so it is unit-tested without packets.
//
// Jitter is uniform in [-jitter, +jitter] around the delay (netem's default distribution),
// clamped at zero. Unless reordering is asked for, a packet never leaves before the one
// that arrived ahead of it: release = max(arrival + delay + jitter, previous release),
// which is what a real FIFO link with variable delay does.
#pragma once

#include <cstdint>
#include <deque>
#include <queue>
#include <random>
#include <vector>

#include "netns/lateness_histogram.h"

namespace testbed {

struct DelayParams {
  int64_t delay_us = 0;
  int64_t jitter_us = 0;
  bool reorder = false;
  bool operator==(const DelayParams&) const = default;
};

class DelayQueue {
 public:
  DelayQueue(DelayParams params, uint64_t seed) : params_(params), rng_(seed) {}

  // New packets get the new parameters; packets already held keep their release time.
  void set_params(DelayParams params) { params_ = params; }
  const DelayParams& params() const { return params_; }

  // Admits packet `id` arriving at `now_us`; returns its release time.
  int64_t admit(uint32_t id, int64_t now_us);
  // Removes and returns the ids due by `now_us + early_us`, in release order, and records
  // how late each leaves. Releasing a little early lets one wake-up serve packets due
  // microseconds apart (see the delay line's --release-window-us). The host's last stall,
  // `stalled_us` long, was seen at `stall_end_us` (now, by default: the caller woke that
  // much later than asked for this release): of a packet due by then, up to that much of
  // its lateness is the host's, the rest the emulator's own. A stall seen before now covers
  // packets that fell due before it but were read after it (the delay line reads a busy
  // queue's arrivals only when it runs empty).
  std::vector<uint32_t> release_due(int64_t now_us, int64_t early_us = 0, int64_t stalled_us = 0,
                                    int64_t stall_end_us = -1);
  // The earliest release time held, or -1 when empty.
  int64_t next_release() const;
  size_t size() const { return fifo_.size() + heap_.size(); }
  // Every release so far: how late against its due time (early counts as on time).
  const LatenessHistogram& lateness() const { return lateness_; }
  // The same releases, less the caller's wake-up stall: what the emulator's own work (a
  // backlog of packets, other queues served first) made them late.
  const LatenessHistogram& emulator_lateness() const { return emulator_lateness_; }

 private:
  struct Held {
    int64_t release_us;
    uint32_t id;
    bool operator>(const Held& o) const { return release_us > o.release_us; }
  };
  DelayParams params_;
  std::mt19937_64 rng_;
  int64_t last_release_us_ = 0;
  std::deque<Held> fifo_;                                              // no reordering
  std::priority_queue<Held, std::vector<Held>, std::greater<>> heap_;  // reordering
  LatenessHistogram lateness_, emulator_lateness_;
  void record(int64_t late_us, int64_t host_us);
};

}  // namespace testbed
