// One wait for everything a verb waits on, in one poll(2): the stop signals (StopSignals'
// descriptor), the end of processes (their pidfds) and descriptors with data (a child's
// pipes). The loop that waits wakes at the first of them, or at its timeout, rather than at
// the next tick of a sleep; the shape is Mahimahi's event loop, where signals and children
// are descriptors like any other.
//
// Why the signals come through StopSignals' self-pipe and not a signalfd: a signalfd needs
// its signals blocked in every thread of the process, and a blocked signal stays blocked
// across exec. Every child the testbed starts (agents, users' jobs, iperf3, the delay line)
// would then start with SIGTERM blocked unless each spawn site unblocked it, and one missed
// site would make `down`'s SIGTERM do nothing; ZeroMQ's and Asio's threads would have to be
// started after the mask, too. The self-pipe's byte wakes the same poll with none of that.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <vector>

#include "netns/process_exit.h"

namespace testbed {

class StopSignals;

class WaitSet {
 public:
  // What woke a wait; all empty when it timed out.
  struct Woken {
    bool stop = false;          // a stop signal's byte waits in StopSignals' pipe
    std::vector<pid_t> ended;   // watched processes that have ended (not reaped: the caller's)
    std::vector<int> readable;  // watched descriptors with data, end of file or an error
  };
  // A wait that forever waits for one of its watches, without timeout.
  static constexpr std::chrono::milliseconds kForever{-1};

  explicit WaitSet(const StopSignals* stop = nullptr) : stop_(stop) {}

  // Watches `pid` until it ends, and keeps reporting it ended at every wait until it is
  // forgotten (forget_end, once reaped): an end is a state, not an event. A process that
  // has already ended (its pidfd cannot be opened) is reported the same way, at once. The
  // caller has made sure `pid` is the process it means (a child not yet reaped, or a
  // recorded start time).
  void watch_end(pid_t pid);
  void forget_end(pid_t pid);
  void watch_readable(int fd);
  void forget_readable(int fd);

  // Waits for the first of the watches, up to `timeout` (kForever: no limit). A signal that
  // interrupts poll(2) returns at once, as a wake.
  Woken wait(std::chrono::milliseconds timeout);

 private:
  const StopSignals* stop_;
  std::map<pid_t, ProcessHandle> processes_;
  std::vector<int> fds_;
};

}  // namespace testbed
