// Waiting for processes to end, written once: a child reaped with its exit code decoded the
// same way everywhere, and any process (our child or one a crashed controller left) watched
// through a pidfd. A pidfd names the process itself, not its number: once opened, a pid the
// kernel hands to someone else after the exit never answers for it, and poll() wakes at the
// exit instead of the caller sleeping in a loop (Linux 5.3; Debian 12's kernel is 6.1).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>

#include "netns/named_netns.h"

namespace testbed {

// A wait status as a shell reports it: the exit code, or 128 + the signal that ended it.
int exit_code_of(int wait_status);

// Waits for our child to end and reaps it (EINTR retried): its exit code. -1 when it is
// not ours to reap (reaped already).
int reap(pid_t child);

// Reaps our child if it has ended: its exit code; nullopt while it runs; -1 when it is
// not ours to reap (reaped already).
std::optional<int> reap_if_ended(pid_t child);

// A process watched through its pidfd. Opening fails (empty handle) when it has already
// gone; the caller checks that it is the process it recorded (its start time) before
// opening, and from then on the handle can only mean that process.
class ProcessHandle {
 public:
  static ProcessHandle open(pid_t pid);
  bool valid() const { return fd_.get() >= 0; }
  pid_t pid() const { return pid_; }
  // The pidfd: readable once the process has ended (for a poll of several, WaitSet).
  int fd() const { return fd_.get(); }
  // Signals it through the pidfd (never a stranger that took its number); false when it
  // has ended.
  bool signal(int sig) const;
  // Waits until it has ended or `deadline` passed; true when it has ended. A child of ours
  // is left to reap (reap, reap_if_ended): its exit code is the caller's.
  bool wait_until(std::chrono::steady_clock::time_point deadline) const;

 private:
  FileDescriptor fd_;
  pid_t pid_ = -1;
};

// Ends our child: SIGTERM (to its process group when `group`), up to `grace` to go, then
// SIGKILL; reaped. Its exit code.
int end_child(pid_t child, std::chrono::milliseconds grace, bool group = false);

}  // namespace testbed
