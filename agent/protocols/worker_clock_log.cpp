#include "agent/protocols/worker_clock_log.h"

#include "agent/contracts/worker_events.h"
#include "agent/transport/wire.h"

#include <algorithm>

namespace testbed {

void WorkerClockLog::started(uint64_t clock, Clock::time_point now) {
  if (in_clock_ && clock > 0) {
    const double seconds = std::chrono::duration<double>(now - clock_started_).count();
    iteration_s_.push_back(seconds);
    // Its compute: from its start to its update computed, when both were stamped (a clock
    // whose update was never marked computed counts none).
    double compute_s = 0;
    if (!started_ns_.empty() && computed_ns_.size() == started_ns_.size())
      compute_s = std::clamp(static_cast<double>(computed_ns_.back() - started_ns_.back()) * 1e-9,
                             0.0, seconds);
    link_.reply(to_json(ClockDone{clock - 1, seconds, compute_s}));
  }
  in_clock_ = true;
  clock_ = clock;
  clock_started_ = now;
  started_ns_.push_back(monotonic_ns());
}

void WorkerClockLog::computed(uint64_t clock) {
  if (in_clock_ && clock == clock_ && computed_ns_.size() < started_ns_.size())
    computed_ns_.push_back(monotonic_ns());
}

void WorkerClockLog::left() {
  if (in_clock_ && computed_ns_.size() < started_ns_.size()) started_ns_.pop_back();
  in_clock_ = false;
}

void WorkerClockLog::evaluated(uint64_t clock, double loss) {
  link_.reply(to_json(LossEvaluated{clock, loss}));
}

void WorkerClockLog::finished() {
  link_.reply(to_json(WorkerFinished{iteration_s_, started_ns_, computed_ns_, samples_}));
}

}  // namespace testbed
