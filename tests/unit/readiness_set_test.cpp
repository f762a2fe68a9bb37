#include "netns/readiness_set.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>

namespace testbed {
namespace {

constexpr timespec kNoWait{0, 0};
constexpr timespec kShortWait{0, 20 * 1000 * 1000};  // 20 ms: long enough to see a wake-up

// A pipe whose ends close with the test.
struct Pipe {
  std::array<int, 2> fds{-1, -1};
  Pipe() { EXPECT_EQ(pipe(fds.data()), 0); }
  ~Pipe() {
    for (int fd : fds)
      if (fd >= 0) close(fd);
  }
  int read_end() const { return fds[0]; }
  void write_byte() const { ASSERT_EQ(write(fds[1], "x", 1), 1); }
  void close_write_end() {
    close(fds[1]);
    fds[1] = -1;
  }
};

TEST(ReadinessSet, ReportsTheTagsOfWatchesWithData) {
  ReadinessSet set;
  ASSERT_TRUE(set.ok());
  Pipe a, b, c;
  ASSERT_TRUE(set.add(a.read_end(), 0, true));
  ASSERT_TRUE(set.add(b.read_end(), 1, true));
  ASSERT_TRUE(set.add(c.read_end(), 2, true));
  std::vector<uint32_t> ready;
  EXPECT_EQ(set.wait(&kNoWait, ready), 0);
  EXPECT_TRUE(ready.empty());
  b.write_byte();
  c.write_byte();
  EXPECT_EQ(set.wait(&kShortWait, ready), 2);
  std::sort(ready.begin(), ready.end());
  EXPECT_EQ(ready, (std::vector<uint32_t>{1, 2}));
  // Level-triggered: what is not read is reported again.
  EXPECT_EQ(set.wait(&kNoWait, ready), 2);
}

TEST(ReadinessSet, AWatchTurnedOffIsNotReportedUntilTurnedOnAgain) {
  ReadinessSet set;
  Pipe a;
  ASSERT_TRUE(set.add(a.read_end(), 0, false));
  EXPECT_FALSE(set.on(0));
  a.write_byte();
  std::vector<uint32_t> ready;
  EXPECT_EQ(set.wait(&kShortWait, ready), 0);
  ASSERT_TRUE(set.set(0, true));
  EXPECT_TRUE(set.on(0));
  EXPECT_EQ(set.wait(&kNoWait, ready), 1);
  ASSERT_TRUE(set.set(0, true));  // no change: still on, still reported
  EXPECT_EQ(set.wait(&kNoWait, ready), 1);
  ASSERT_TRUE(set.set(0, false));
  EXPECT_EQ(set.wait(&kShortWait, ready), 0);
  EXPECT_FALSE(set.set(7, true));  // a tag never added
}

// epoll reports a hang-up or an error on a descriptor whatever events were asked; a watch
// turned off must not, or a socket in error would wake every wait of a busy queue.
TEST(ReadinessSet, AHangUpOnAWatchTurnedOffDoesNotWakeTheWait) {
  ReadinessSet set;
  Pipe a;
  ASSERT_TRUE(set.add(a.read_end(), 0, true));
  ASSERT_TRUE(set.set(0, false));
  a.close_write_end();
  std::vector<uint32_t> ready;
  EXPECT_EQ(set.wait(&kShortWait, ready), 0);
  EXPECT_TRUE(ready.empty());
  ASSERT_TRUE(set.set(0, true));
  EXPECT_EQ(set.wait(&kNoWait, ready), 1);
}

}  // namespace
}  // namespace testbed
