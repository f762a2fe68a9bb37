#include "controller/dynamics/convergence_worker.h"

#include <exception>

namespace testbed {
namespace {

// The stop flag is set by a signal handler, which cannot notify a condition variable: the
// worker and drain() look at it at least this often.
constexpr auto kStopCheck = std::chrono::milliseconds(100);

}  // namespace

ConvergenceWorker::ConvergenceWorker(std::function<void()> converge,
                                     std::function<void(const std::string&)> on_error,
                                     const std::atomic<bool>& stop)
    : converge_(std::move(converge)),
      on_error_(std::move(on_error)),
      stop_(stop),
      thread_([this] { loop(); }) {}

ConvergenceWorker::~ConvergenceWorker() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ConvergenceWorker::changed(Clock::duration delay) {
  {
    std::lock_guard lock(mutex_);
    if (due_) return;  // joins the convergence already due
    due_ = Clock::now() + delay;
  }
  wake_.notify_all();
}

void ConvergenceWorker::drain() {
  std::unique_lock lock(mutex_);
  while ((due_ || running_) && !stop_ && !quit_) wake_.wait_for(lock, kStopCheck);
}

void ConvergenceWorker::loop() {
  std::unique_lock lock(mutex_);
  while (!quit_ && !stop_) {
    if (!due_ || Clock::now() < *due_) {
      const auto until =
          due_ ? std::min(*due_, Clock::now() + kStopCheck) : Clock::now() + kStopCheck;
      wake_.wait_until(lock, until);
      continue;
    }
    // What changes from here on is not in what this convergence reads: it is due anew.
    due_.reset();
    running_ = true;
    lock.unlock();
    try {
      converge_();
    } catch (const std::exception& ex) {
      on_error_(ex.what());
    }
    ++done_;
    lock.lock();
    running_ = false;
    wake_.notify_all();  // drain() may be waiting
  }
}

}  // namespace testbed
