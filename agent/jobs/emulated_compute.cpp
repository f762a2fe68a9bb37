#include "agent/jobs/emulated_compute.h"

#include <time.h>

#include <algorithm>

namespace testbed {

int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void EmulatedCompute::start() {
  started_ = Clock::now();
  cpu_started_ns_ = thread_cpu_ns();
  end_ = started_;
  cpu_end_ns_ = cpu_started_ns_;
}

void EmulatedCompute::set_length(int ms) {
  end_ = started_ + std::chrono::milliseconds(ms);
  cpu_end_ns_ = cpu_started_ns_ + static_cast<int64_t>(ms) * 1'000'000;
}

bool EmulatedCompute::finished() {
  if (!on_cpu_) return Clock::now() >= end_;
  int64_t now = thread_cpu_ns();
  const int64_t until = std::min(cpu_end_ns_, now + kSliceNs);
  // Work the optimizer cannot remove (the result is kept in a volatile), checking the clock
  // every few thousand operations.
  volatile double sink = 0;
  double x = 1.0;
  while (now < until) {
    for (int i = 0; i < 4096; ++i) x = x * 1.0000001 + 1e-9;
    sink = x;
    now = thread_cpu_ns();
  }
  (void)sink;
  return now >= cpu_end_ns_;
}

std::chrono::milliseconds EmulatedCompute::timeout() const {
  using std::chrono::milliseconds;
  if (on_cpu_) return milliseconds(0);  // the loop comes back at once to burn the next slice
  return std::max(milliseconds(0), std::chrono::ceil<milliseconds>(end_ - Clock::now()));
}

}  // namespace testbed
