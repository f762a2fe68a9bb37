// QuietWatch on a scripted clock: a run whose workers all wait with nothing queued fails at
// the limit, naming each waiting worker and its clock; any worker's progress, or the
// network being stalled (the stall watch's to report), starts the count again.
#include "controller/training/quiet_watch.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

TEST(QuietWatch, ARunQuietPastTheLimitNamesEveryWaitingWorkerAndItsClock) {
  QuietWatch q({"w1", "w2", "w3"}, 0, 300);
  q.clock_done(0, 5, 10);
  q.clock_done(1, 4, 12);
  q.finished(2, 20);
  EXPECT_FALSE(q.lost(319));  // 299 s after the last progress
  const auto why = q.lost(320);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("for 300 s"), std::string::npos) << *why;
  EXPECT_NE(why->find("w1 in clock 6, w2 in clock 5"), std::string::npos) << *why;
  EXPECT_EQ(why->find("w3"), std::string::npos) << *why;  // finished: not waiting
}

TEST(QuietWatch, AnyProgressOrAStalledNetworkStartsTheCountAgain) {
  QuietWatch q({"w1", "w2"}, 0, 300);
  q.clock_done(1, 1, 250);  // one worker's progress is the run's
  EXPECT_FALSE(q.lost(500));
  q.network_stalled(540);  // reported by the stall watch, not here
  EXPECT_FALSE(q.lost(800));
  EXPECT_TRUE(q.lost(840));
  q.clock_done(7, 3, 900);  // no such worker: not progress
  EXPECT_TRUE(q.lost(900));
  EXPECT_THROW(QuietWatch({"w1"}, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace testbed
