// How much of each turn of the delay line's loop the host took from it: wall time that
// was neither the delay line's own work nor the sleep it asked for. A release's lateness
// beyond that is the emulator's own (DelayQueue::release_due). Pure: the loop passes in
// its clocks (CLOCK_MONOTONIC and the thread's CPU clock), so it is unit-tested.
//
// Two choices, each measured on a noisy virtual machine (a light run was judged unhealthy,
// emulator p99 2-4 ms, until both were made):
//  - The account runs without a gap, from where the last turn's ended, not from the top
//    of each turn: a stall inside the last turn's verdicts delays this turn's releases too.
//  - Our own work is the CPU time charged outside the sleep. What is charged during the
//    sleep is the kernel's and the host's: interrupts and softirqs run on whatever task is
//    current (on a kernel without IRQ time accounting, as our CI machine's), and a guest's
//    faults on memory its host took back are charged as running. On a quiet host it is
//    under 0.2 ms in 99.9% of turns; on the noisy one it reached 12.5 ms in one sleep.
//    The price: the softirq work of the lab's own packets done in our sleep counts as the
//    host's too, so an overloaded lab is flagged by its saturated CPUs rather than here.
#pragma once

#include <algorithm>
#include <cstdint>

namespace testbed {

class HostStallClock {
 public:
  // The clocks when the loop starts.
  HostStallClock(int64_t wall_us, int64_t charged_us) : wall_(wall_us), charged_(charged_us) {}

  // One turn ends at `wall_us` with `charged_us` of CPU charged so far; in it the loop slept
  // `slept_us` of what it asked and was charged `charged_asleep_us` while asleep. Returns the
  // host's stall in the turn, never negative, and starts the next turn here.
  int64_t end_turn(int64_t wall_us, int64_t charged_us, int64_t slept_us,
                   int64_t charged_asleep_us) {
    const int64_t own = (charged_us - charged_) - charged_asleep_us;
    const int64_t stalled = std::max<int64_t>(0, (wall_us - wall_) - own - slept_us);
    wall_ = wall_us;
    charged_ = charged_us;
    return stalled;
  }

 private:
  int64_t wall_, charged_;
};

}  // namespace testbed
