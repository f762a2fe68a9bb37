// A worker's emulated compute for one clock, one of two ways:
//   wait (the default)  the clock's milliseconds pass while nothing runs: the compute of a
//                       machine this one does not have; a node's CPU limit slows only the
//                       real update computed inside it.
//   cpu (--compute-as)  the clock's milliseconds are CPU time burnt by the worker, so a node
//                       throttled to `cpus: c` takes 1/c of them in wall time, and a
//                       straggler of the node's profile (docs/compute.md) slows it as a
//                       slowed machine would: the second reading of MLfabric's compute
//                       settings (docs/mlfabric.md).
// The real update's own time counts toward the clock's either way (start() comes before it).
#pragma once

#include <chrono>
#include <cstdint>

namespace testbed {

class EmulatedCompute {
 public:
  using Clock = std::chrono::steady_clock;

  explicit EmulatedCompute(bool on_cpu = false) : on_cpu_(on_cpu) {}
  void set_on_cpu(bool on_cpu) { on_cpu_ = on_cpu; }
  bool on_cpu() const { return on_cpu_; }

  // The clock's compute begins (its wall time and this thread's CPU time are taken now).
  void start();
  // Its length: wall milliseconds waited, or CPU milliseconds burnt, from start().
  void set_length(int ms);
  // Whether the clock's compute is over. On CPU it first burns a slice (kSliceNs at most),
  // so that the event loop still serves messages between slices.
  bool finished();
  // How long the event loop may wait before finished() can be true: 0 while CPU is left.
  std::chrono::milliseconds timeout() const;

  // Five milliseconds of CPU a slice: short beside any message's handling time the
  // protocols budget for, long beside the cost of reading the thread's CPU clock (~1 us).
  static constexpr int64_t kSliceNs = 5'000'000;

 private:
  bool on_cpu_;
  Clock::time_point end_{};
  int64_t cpu_end_ns_ = 0;
  int64_t cpu_started_ns_ = 0;
  Clock::time_point started_{};
};

// This thread's CPU time, ns (CLOCK_THREAD_CPUTIME_ID).
int64_t thread_cpu_ns();

}  // namespace testbed
