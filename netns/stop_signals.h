// The signals that ask a verb to stop (Ctrl-C, `down`'s SIGTERM, a closed terminal's
// SIGHUP), caught in one place for every verb that waits. A handler can only touch
// globals, so there is one set of them here, behind one owner at a time: the verb makes a
// StopSignals and hands `received()` (the signal, or 0) or `stopping()` to whatever loop
// polls, and `fd()` to a loop that sleeps in poll(2) (a byte arrives on it per signal, the
// self-pipe way, so a sleeper wakes at once rather than at its next tick). The previous
// handlers come back when it is destroyed. While it lives, SIGPIPE (a reader of our output
// gone) is caught and ignored, so a write fails with EPIPE instead of killing the verb
// before it ends what it started.
//
// A loop that also waits for children or pipes polls fd() beside their descriptors in a
// WaitSet (wait_set.h).
//
// Every verb and `testbed _rank` catch signals here. Only the delay line
// (delay_line_main.cpp) keeps a handler of its own: it is a program of its own that links
// nothing of this library.
#pragma once

#include <atomic>
#include <csignal>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace testbed {

class StopSignals {
 public:
  explicit StopSignals(std::initializer_list<int> signals = {SIGINT, SIGTERM, SIGHUP});
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The last stop signal received, or 0.
  const std::atomic<int>& received() const;
  // Whether any was: for loops that take a flag.
  const std::atomic<bool>& stopping() const;
  // Whether `sig` has arrived since this owner began (received() keeps only the last).
  bool has_received(int sig) const;
  // Readable once a signal has arrived. It stays readable (a verb stops for good) until
  // drained: drain() is for a loop that goes on after a signal, such as the rank
  // supervisor, which outlives its job's SIGTERM to hand on the job's status.
  int fd() const;
  void drain() const;

 private:
  std::vector<std::pair<int, struct sigaction>> previous_;
};

}  // namespace testbed
