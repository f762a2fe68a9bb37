#include "controller/lab/fit/scale_rates.h"

#include <algorithm>
#include <cmath>

namespace testbed {
namespace {

// Two full frames: a queue must hold at least a packet in flight and the next.
constexpr uint64_t kLeastQueueBytes = 2 * 1514;
constexpr uint64_t kLeastQueuePackets = 2;

uint64_t times(uint64_t x, double factor, uint64_t least) {
  if (x == 0) return 0;  // "none" stays none (a step that changes only the delay)
  return std::max<uint64_t>(least,
                            static_cast<uint64_t>(std::llround(static_cast<double>(x) * factor)));
}

void scale_rate(Rate& r, double factor) {
  r.bits_per_s = times(r.bits_per_s, factor, 1);
}

void scale_direction(DirectionParams& d, double factor) {
  scale_rate(d.rate, factor);
  for (auto& c : d.schedule.changes)
    if (c.rate) scale_rate(*c.rate, factor);
  scale_rate(d.schedule.min_rate, factor);
  scale_rate(d.schedule.max_rate, factor);
  scale_rate(d.schedule.step, factor);
  for (auto& r : d.schedule.choices) scale_rate(r, factor);
  if (d.queue) {
    const bool bytes = d.queue->unit == QueueSize::Unit::kBytes;
    d.queue->amount = times(d.queue->amount, factor, bytes ? kLeastQueueBytes : kLeastQueuePackets);
  }
}

}  // namespace

void scale_topology_rates(Topology& topology, double factor) {
  if (!(factor > 0) || factor >= 1) return;
  for (auto& l : topology.links) {
    scale_direction(l.a2b, factor);
    scale_direction(l.b2a, factor);
  }
  for (auto& t : topology.cross_traffic) {
    scale_rate(t.rate, factor);
    t.mean_size = times(t.mean_size, factor, 1);
    t.max_size = times(t.max_size, factor, 1);
  }
}

}  // namespace testbed
