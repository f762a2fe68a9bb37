// The signals that ask a verb to stop (Ctrl-C, `down`'s SIGTERM, a closed terminal's
// SIGHUP), caught in one place for every verb that waits. A handler can only touch
// globals, so there is one set of them here, behind one owner at a time: the verb makes a
// StopSignals and hands `received()` (the signal, or 0) or `stopping()` to whatever loop
// polls, and `fd()` to a loop that sleeps in poll(2) (a byte arrives on it per signal, the
// self-pipe way, so a sleeper wakes at once rather than at its next tick). The previous
// handlers come back when it is destroyed.
//
// Two processes keep handlers of their own, for reasons of their own: `testbed _rank`
// (rank_supervisor.cpp) forwards signals to its job and watches for its parent's death,
// and a run's `end_agents_and_die` (training_run.cpp) ends the agents by recorded pid from
// inside the handler, as the run dies; the delay line (delay_line_main.cpp) is a program
// of its own that links nothing of this library.
#pragma once

#include <atomic>
#include <csignal>
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
  // Readable once a signal has arrived (never drained here: it stays readable).
  int fd() const;

 private:
  std::vector<std::pair<int, struct sigaction>> previous_;
};

}  // namespace testbed
