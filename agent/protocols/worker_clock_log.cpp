#include "agent/protocols/worker_clock_log.h"

#include "agent/transport/wire.h"

namespace testbed {

void WorkerClockLog::started(uint64_t clock, Clock::time_point now) {
  if (clock > 0) {
    const double seconds = std::chrono::duration<double>(now - clock_started_).count();
    iteration_s_.push_back(seconds);
    link_.reply({{"event", "clock"}, {"clock", clock - 1}, {"seconds", seconds}});
  }
  clock_started_ = now;
  started_ns_.push_back(monotonic_ns());
}

void WorkerClockLog::computed(uint64_t clock) {
  if (clock == computed_ns_.size()) computed_ns_.push_back(monotonic_ns());
}

void WorkerClockLog::evaluated(uint64_t clock, double loss) {
  link_.reply({{"event", "eval"}, {"clock", clock}, {"loss", loss}});
}

void WorkerClockLog::finished() {
  link_.reply({{"event", "finished"},
               {"clocks", iteration_s_.size()},
               {"iteration_s", iteration_s_},
               {"started_ns", started_ns_},
               {"computed_ns", computed_ns_},
               {"samples", samples_}});
}

}  // namespace testbed
