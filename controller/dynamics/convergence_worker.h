// Routing convergence in a thread of its own, so the timeline's changes never wait for it.
//
// Converging a 1000-node lab takes the better part of a second (the shortest paths from
// every node, then every namespace's routes: docs/faults.md). Run on the timeline's own
// thread, every change that fell due meanwhile waited for it: a lag p99 of 0.9-1.0 s under
// 200 changes a second. Here the timeline only says when a convergence is due, and goes on.
//
// The timing is the timeline's as it was: the delay counts from the first cut or restore
// not yet converged, and later ones join that convergence (as an SPF's initial wait counts
// from the first event), so links flapping faster than the delay never hold routing off.
// A change made while a convergence runs is not in what it read, so it asks for the next.
// The convergence itself reads the links from current.json and writes routes.json under
// their file locks, and uses a kernel of its own (no netlink state is shared between the
// two threads).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace testbed {

class ConvergenceWorker {
 public:
  using Clock = std::chrono::steady_clock;
  // `converge` runs on the worker's thread, one call at a time; what it throws is given to
  // `on_error` (and the next convergence starts again from the same state).
  ConvergenceWorker(std::function<void()> converge,
                    std::function<void(const std::string&)> on_error,
                    const std::atomic<bool>& stop);
  ~ConvergenceWorker();  // stops at once, converging nothing more
  ConvergenceWorker(const ConvergenceWorker&) = delete;
  ConvergenceWorker& operator=(const ConvergenceWorker&) = delete;

  // A cut or restore happened now: converge `delay` from now, unless a convergence is
  // already due (this change joins it).
  void changed(Clock::duration delay);
  // Waits until nothing is due or running (the schedules' last change converged), or the
  // stop is set.
  void drain();
  uint64_t convergences() const { return done_; }

 private:
  void loop();

  std::function<void()> converge_;
  std::function<void(const std::string&)> on_error_;
  const std::atomic<bool>& stop_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<Clock::time_point> due_;
  bool running_ = false;
  bool quit_ = false;
  std::atomic<uint64_t> done_{0};
  std::thread thread_;  // last: it starts once everything above is ready
};

}  // namespace testbed
