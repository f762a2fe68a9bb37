// A JobRunner on a thread of its own, for a launch across hosts: the thread that starts it
// keeps the control channel (a ZeroMQ socket is used by one thread) and tells the runner to
// stop when another host's rank failed, its controller went silent or a signal came.
#pragma once

#include <atomic>
#include <csignal>
#include <exception>
#include <thread>

#include "controller/launch/job_runner.h"

namespace testbed {

class RunnerThread {
 public:
  explicit RunnerThread(JobRunner& runner)
      : thread_([this, &runner] {
          try {
            outcome_ = runner.run(stop_);
          } catch (...) {
            error_ = std::current_exception();
          }
          done_ = true;
        }) {}
  ~RunnerThread() {
    stop(SIGTERM);
    if (thread_.joinable()) thread_.join();
  }
  RunnerThread(const RunnerThread&) = delete;
  RunnerThread& operator=(const RunnerThread&) = delete;

  // The runner stops its ranks as for an interrupt (SIGTERM, SIGKILL after the grace).
  void stop(int why) {
    int none = 0;
    stop_.compare_exchange_strong(none, why);
  }
  bool done() const { return done_; }
  // After done(): the runner's outcome, or its exception rethrown (a rank not started).
  JobOutcome take() {
    thread_.join();
    if (error_) std::rethrow_exception(error_);
    return std::move(outcome_);
  }

 private:
  std::atomic<int> stop_{0};
  std::atomic<bool> done_{false};
  JobOutcome outcome_;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the rest exists
};

}  // namespace testbed
