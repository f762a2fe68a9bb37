// How far apart a sampler's samples come when each costs CPU in proportion to the lab's
// size: the health monitor's reads of every direction, the exporter's. On a small lab a
// sample is cheap and they keep their grid; at thousands of directions one took a tenth
// of a second and more of CPU, and at a fixed period the sampler held a core of the very
// machine whose load it judges. Spaced by the sampler's own CPU, not its wall time: on a
// saturated host the wall time stretches while the cost does not (spacing by wall time
// put health samples 36 s apart under a loaded run).
#pragma once

#include <algorithm>
#include <chrono>

namespace testbed {

// After a sample that took `took` of the sampler's CPU, the time to the next: `times`
// that cost (a sampler then uses at most 1/times of a core), within [floor, ceiling].
inline std::chrono::milliseconds spaced_by_cost(std::chrono::nanoseconds took, int times,
                                                std::chrono::milliseconds floor,
                                                std::chrono::milliseconds ceiling) {
  return std::clamp(std::chrono::ceil<std::chrono::milliseconds>(took * times), floor, ceiling);
}

}  // namespace testbed
