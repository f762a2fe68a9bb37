// What a worker tells the controller about its clocks, the same for every protocol whose
// workers run clocks (the parameter server's, Gaia's): when each clock's parameters were
// complete (the clock's start), each clock's duration, the held-out losses evaluated on
// the way, and at the end one `finished` event with the whole record. The controller's
// time-to-accuracy, iteration times and SSP checks read these, so they must not differ
// between protocols.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "agent/runtime/protocol.h"

namespace testbed {

class WorkerClockLog {
 public:
  using Clock = std::chrono::steady_clock;
  explicit WorkerClockLog(AgentLink& link) : link_(link) {}

  // The parameters of `clock` are complete at `now`: the clock starts. Reports how long
  // the previous clock took (from its start to this one's), unless none was under way (the
  // first, or the first since the worker was away: a joiner starts at the run's clock).
  void started(uint64_t clock, Clock::time_point now);
  // The update of `clock` is computed now (its emulated compute time is over): from here
  // the clock waits on communication alone.
  void computed(uint64_t clock);
  // The worker left an elastic run mid-clock: that clock is not its, and the time until it
  // comes back (if it does) is no clock's. Stamps stay paired: the k-th start with the k-th
  // update computed.
  void left();
  // The held-out loss on the values clock `clock` reads.
  void evaluated(uint64_t clock, double loss);
  void add_samples(size_t samples) { samples_ += samples; }
  // The `finished` event: clocks run, their durations, start and computed times, samples.
  void finished();

 private:
  AgentLink& link_;
  Clock::time_point clock_started_;
  bool in_clock_ = false;  // a clock is under way: the next start ends it
  uint64_t clock_ = 0;     // the one under way
  std::vector<double> iteration_s_;
  std::vector<int64_t> started_ns_;   // per clock: when its parameters were complete
  std::vector<int64_t> computed_ns_;  // per clock: when its update was computed
  uint64_t samples_ = 0;
};

}  // namespace testbed
