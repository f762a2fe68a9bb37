#include "netns/delay_queue.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

TEST(DelayQueue, HoldsEachPacketForTheDelay) {
  DelayQueue q({30000, 0, false}, 1);
  EXPECT_EQ(q.admit(1, 1000), 31000);
  EXPECT_EQ(q.admit(2, 2000), 32000);
  EXPECT_TRUE(q.release_due(30999).empty());
  EXPECT_EQ(q.release_due(31000), std::vector<uint32_t>{1});
  EXPECT_EQ(q.next_release(), 32000);
  EXPECT_EQ(q.release_due(40000), std::vector<uint32_t>{2});
  EXPECT_EQ(q.next_release(), -1);
}

TEST(DelayQueue, JitterKeepsFifoOrderUnlessAskedToReorder) {
  DelayQueue fifo({10000, 5000, false}, 42);
  DelayQueue reorder({10000, 5000, true}, 42);
  int64_t last = 0;
  for (uint32_t id = 1; id <= 1000; ++id) {
    const int64_t r = fifo.admit(id, id * 100);  // a packet every 100 us, jitter +-5 ms
    EXPECT_GE(r, last);
    EXPECT_GE(r, id * 100 + 5000);  // delay - jitter at least
    last = r;
    reorder.admit(id, id * 100);
  }
  const auto in_order = fifo.release_due(1000000000);
  ASSERT_EQ(in_order.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(in_order.begin(), in_order.end()));
  const auto shuffled = reorder.release_due(1000000000);
  ASSERT_EQ(shuffled.size(), 1000u);
  EXPECT_FALSE(std::is_sorted(shuffled.begin(), shuffled.end()));
}

TEST(DelayQueue, JitterIsSeededAndCentredOnTheDelay) {
  DelayQueue a({10000, 2000, true}, 9), b({10000, 2000, true}, 9);
  double sum = 0;
  for (uint32_t id = 0; id < 10000; ++id) {
    const int64_t r = a.admit(id, 0);
    EXPECT_EQ(r, b.admit(id, 0));
    EXPECT_GE(r, 8000);
    EXPECT_LE(r, 12000);
    sum += static_cast<double>(r);
  }
  EXPECT_NEAR(sum / 10000, 10000, 100);
}

TEST(DelayQueue, NewDelayAppliesToNewPacketsWithoutOvertaking) {
  DelayQueue q({100000, 0, false}, 1);
  q.admit(1, 0);                        // leaves at 100 ms
  q.set_params({10000, 0, false});      // the link gets faster
  EXPECT_EQ(q.admit(2, 1000), 100000);  // would leave at 11 ms, but not before packet 1
  EXPECT_EQ(q.admit(3, 95000), 105000);
}

}  // namespace
}  // namespace testbed
