// Waiting for processes (netns/process_exit.h): exit codes decoded as a shell does, a child
// reaped once, a pidfd that wakes at the exit and never answers for another process, and a
// child that ignores SIGTERM ended by SIGKILL after its grace.
#include "netns/process_exit.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

namespace testbed {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A child that waits for a signal forever; with `ignore_term`, one SIGTERM does not end.
// Returns once the child has set itself up (it says so on a pipe), so no signal comes early.
pid_t waiting_child(bool ignore_term = false) {
  int ready[2];
  if (pipe(ready) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    if (ignore_term) signal(SIGTERM, SIG_IGN);
    if (write(ready[1], "r", 1) != 1) _exit(99);
    for (;;) pause();
  }
  close(ready[1]);
  char c;
  if (read(ready[0], &c, 1) != 1) return -1;
  close(ready[0]);
  return pid;
}

TEST(ProcessExit, ExitCodesAndSignalsAreDecodedAsAShellDoes) {
  const pid_t exits = fork();
  if (exits == 0) _exit(3);
  EXPECT_EQ(reap(exits), 3);
  const pid_t killed = waiting_child();
  ASSERT_GT(killed, 0);
  kill(killed, SIGKILL);
  EXPECT_EQ(reap(killed), 128 + SIGKILL);
  // Reaped once: a second wait is not ours to make.
  EXPECT_EQ(reap(killed), -1);
  EXPECT_EQ(reap_if_ended(killed), -1);
}

TEST(ProcessExit, AHandleWakesAtTheExitAndNeverSignalsAnother) {
  const pid_t pid = waiting_child();
  ASSERT_GT(pid, 0);
  EXPECT_EQ(reap_if_ended(pid), std::nullopt);  // still running
  const ProcessHandle h = ProcessHandle::open(pid);
  ASSERT_TRUE(h.valid());
  // Running: the deadline passes and the answer is no.
  EXPECT_FALSE(h.wait_until(steady_clock::now() + milliseconds(50)));
  ASSERT_TRUE(h.signal(SIGKILL));
  // Ended: wakes without waiting for the (far) deadline; left for its parent to reap.
  EXPECT_TRUE(h.wait_until(steady_clock::now() + std::chrono::hours(1)));
  EXPECT_EQ(reap(pid), 128 + SIGKILL);
  // Reaped, its number is free for anyone: the handle signals nothing.
  EXPECT_FALSE(h.signal(SIGKILL));
  EXPECT_TRUE(h.wait_until(steady_clock::now()));
}

TEST(ProcessExit, AGoneProcessHasNoHandle) {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  EXPECT_EQ(reap(pid), 0);
  EXPECT_FALSE(ProcessHandle::open(pid).valid());
  EXPECT_FALSE(ProcessHandle::open(-1).valid());
}

TEST(ProcessExit, EndChildTermsThenKillsWhatIgnoresIt) {
  const pid_t polite = waiting_child();
  ASSERT_GT(polite, 0);
  EXPECT_EQ(end_child(polite, milliseconds(5000)), 128 + SIGTERM);
  const pid_t stubborn = waiting_child(/*ignore_term=*/true);
  ASSERT_GT(stubborn, 0);
  EXPECT_EQ(end_child(stubborn, milliseconds(100)), 128 + SIGKILL);
  // One that has ended already is reaped with its own code, and nothing is signalled.
  const pid_t done = fork();
  if (done == 0) _exit(7);
  const ProcessHandle h = ProcessHandle::open(done);  // a zombie still has its handle
  ASSERT_TRUE(h.valid());
  ASSERT_TRUE(h.wait_until(steady_clock::now() + std::chrono::hours(1)));
  EXPECT_EQ(end_child(done, milliseconds(5000)), 7);
}

}  // namespace
}  // namespace testbed
