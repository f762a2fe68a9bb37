// How early the delay line wakes for a release (delay_line_main.cpp). Pure: the loop
// passes in its clock, so it is unit-tested.
#pragma once

#include <algorithm>
#include <cstdint>

namespace testbed {

// How early to wake for a release, so that a wake-up that comes late still releases on
// time: the old design's 200 us (where a window allows), or twice the wait's recent lateness
// on a host whose timers are slower, but never more than half the window: release() takes
// all due by then + the window, so the other half batches the packets due after the first.
// Whatever the host's stalls beyond it, health reports as lateness, split from our own
// (host_stall.h).
class WakeMargin {
 public:
  int64_t before(int64_t due, int64_t window_us) const {
    return due - std::min(window_us / 2, std::max(kEarlyUs, 2 * late_us_));
  }
  // A timed wake-up asked for `asked` came at `woke`.
  void woke(int64_t asked, int64_t woke) {
    const int64_t late = std::clamp<int64_t>(woke - asked, 0, kMaxLateUs);
    late_us_ += (late - late_us_) / kWeight;
  }

 private:
  static constexpr int64_t kEarlyUs = 200;
  static constexpr int64_t kMaxLateUs = 1000;  // a stall is the host's, not the timer's
  static constexpr int64_t kWeight = 16;       // an average over the last few dozen
  int64_t late_us_ = 50;                       // a guest's typical timer latency, to start
};

}  // namespace testbed
