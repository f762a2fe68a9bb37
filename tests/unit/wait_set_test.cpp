// One wait for signals, children and pipes (netns/wait_set.h): each wakes it, reported as
// what it is; a timeout reports nothing; a drained stop pipe lets it sleep again. The
// children are forked here: no root is needed.
#include "netns/wait_set.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include "netns/process_exit.h"
#include "netns/stop_signals.h"

namespace testbed {
namespace {

using std::chrono::milliseconds;

// A generous bound, for a loaded machine: the waits below return well before it when they
// work, and a broken wait shows as a timeout.
constexpr milliseconds kLongWait{20'000};

pid_t child_exiting_after(milliseconds ms, int code) {
  const pid_t pid = fork();
  if (pid == 0) {
    usleep(static_cast<useconds_t>(ms.count() * 1000));
    _exit(code);
  }
  return pid;
}

TEST(WaitSet, AChildsEndWakesItAndIsLeftToReap) {
  const pid_t child = child_exiting_after(milliseconds(50), 3);
  ASSERT_GT(child, 0);
  WaitSet waits;
  waits.watch_end(child);
  const WaitSet::Woken woken = waits.wait(kLongWait);
  ASSERT_EQ(woken.ended, std::vector<pid_t>{child});
  EXPECT_FALSE(woken.stop);
  EXPECT_EQ(reap(child), 3);  // not reaped by the wait: its code is the caller's
}

TEST(WaitSet, APipeWithDataWakesItAndATimeoutReportsNothing) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  WaitSet waits;
  waits.watch_readable(p[0]);
  const WaitSet::Woken idle = waits.wait(milliseconds(10));
  EXPECT_TRUE(idle.readable.empty() && idle.ended.empty() && !idle.stop);
  ASSERT_EQ(write(p[1], "x", 1), 1);
  EXPECT_EQ(waits.wait(kLongWait).readable, std::vector<int>{p[0]});
  waits.forget_readable(p[0]);
  EXPECT_TRUE(waits.wait(milliseconds(0)).readable.empty());
  close(p[0]);
  close(p[1]);
}

TEST(WaitSet, AStopSignalWakesItUntilDrained) {
  StopSignals stop({SIGUSR1});
  const pid_t child = child_exiting_after(milliseconds(60'000), 0);  // never the waker
  ASSERT_GT(child, 0);
  WaitSet waits(&stop);
  waits.watch_end(child);
  raise(SIGUSR1);
  const WaitSet::Woken woken = waits.wait(kLongWait);
  EXPECT_TRUE(woken.stop);
  EXPECT_TRUE(woken.ended.empty());
  // Drained, it sleeps again (the flag stays set, but the pipe decides).
  stop.drain();
  EXPECT_FALSE(waits.wait(milliseconds(10)).stop);
  kill(child, SIGKILL);
  reap(child);
}

TEST(WaitSet, AProcessGoneBeforeItWasWatchedIsReportedAtOnce) {
  const pid_t child = child_exiting_after(milliseconds(0), 0);
  ASSERT_GT(child, 0);
  reap(child);  // gone and reaped: no pidfd can be opened for it
  WaitSet waits;
  waits.watch_end(child);
  EXPECT_EQ(waits.wait(kLongWait).ended, std::vector<pid_t>{child});
}

}  // namespace
}  // namespace testbed
