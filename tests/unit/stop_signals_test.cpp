// The one place that catches the stop signals (netns/stop_signals.h): a signal is seen by
// the flag, the number and the wake-up descriptor, one owner at a time, and the previous
// handlers come back.
#include "netns/stop_signals.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <stdexcept>

namespace testbed {
namespace {

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1;
}

TEST(StopSignals, ASignalSetsTheFlagTheNumberAndWakesThePoller) {
  {
    StopSignals stop({SIGUSR1, SIGUSR2});
    EXPECT_EQ(stop.received(), 0);
    EXPECT_FALSE(stop.stopping());
    EXPECT_FALSE(readable(stop.fd()));
    raise(SIGUSR2);  // delivered to this thread before raise returns
    EXPECT_EQ(stop.received(), SIGUSR2);
    EXPECT_TRUE(stop.stopping());
    EXPECT_TRUE(readable(stop.fd()));
    EXPECT_THROW(StopSignals second({SIGUSR1}), std::logic_error);
  }
  // Gone: the defaults are back (SIGUSR1's ends a process; only checked, not raised).
  struct sigaction now {};
  sigaction(SIGUSR1, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);
  // And a new owner starts from nothing received.
  StopSignals again({SIGUSR1});
  EXPECT_EQ(again.received(), 0);
  EXPECT_FALSE(readable(again.fd()));
}

TEST(StopSignals, EachSignalIsRememberedAndTheDrainedPipeSleepsAgain) {
  StopSignals stop({SIGUSR1, SIGUSR2});
  raise(SIGUSR2);
  raise(SIGUSR1);
  // received() keeps the last; has_received() every one (the rank supervisor's
  // parent-death signal must not be hidden by a later SIGTERM).
  EXPECT_EQ(stop.received(), SIGUSR1);
  EXPECT_TRUE(stop.has_received(SIGUSR1));
  EXPECT_TRUE(stop.has_received(SIGUSR2));
  EXPECT_FALSE(stop.has_received(SIGTERM));
  EXPECT_TRUE(readable(stop.fd()));
  stop.drain();
  EXPECT_FALSE(readable(stop.fd()));
  EXPECT_TRUE(stop.stopping());  // the flag stays: a verb stops for good
  raise(SIGUSR2);
  EXPECT_TRUE(readable(stop.fd()));  // a later signal wakes a sleeper again
}

}  // namespace
}  // namespace testbed
