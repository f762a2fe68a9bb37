// Builds a DirectionParams for tests, naming each field in order.
#pragma once

#include "controller/topology/topology.h"

namespace testbed {

inline DirectionParams direction(Rate rate, Duration delay, Duration jitter, Fraction loss,
                                 std::optional<QueueSize> queue) {
  DirectionParams d;
  d.rate = rate;
  d.delay = delay;
  d.jitter = jitter;
  d.loss = loss;
  d.queue = queue;
  return d;
}

}  // namespace testbed
