// StallWatch over scripted socket tables and a scripted clock (no root, no sleeping): a
// queue that holds data and does not move for 10 s is a stall, named by its pair and its
// cause; a pause shorter than that is not; a trickle does not end a stall; the table's
// parser skips what it cannot read.
#include "controller/health/stall_watch.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

using Clock = StallWatch::Clock;
using std::chrono::seconds;

const std::vector<std::string> kNames = {"a", "b", "c"};
const std::vector<std::string> kAddresses = {"198.18.0.1", "198.18.0.2", "198.18.0.3"};
constexpr uint16_t kPort = 7100;

// A connection sending: in loss recovery (a timeout fired since its last ack) unless told.
TcpQueue sending(size_t from, size_t to, uint64_t bytes, uint32_t retransmits = 2) {
  return {kAddresses[from], kAddresses[to], 40000, kPort, 1, bytes, 0, retransmits, 0};
}
TcpQueue receiving(size_t at, size_t from, uint64_t unread) {
  return {kAddresses[at], kAddresses[from], kPort, 40000, 1, 0, unread, 0, 0};
}

struct Scripted {
  std::vector<std::vector<TcpQueue>> tables = std::vector<std::vector<TcpQueue>>(3);
  Clock::time_point t0 = Clock::now();
  StallWatch watch{kNames, kAddresses, kPort, [this](size_t n) { return tables[n]; }, t0};
  std::optional<StallEpisode> at(int s) { return watch.poll(t0 + seconds(s)); }
};

TEST(StallWatch, AQueueThatHoldsDataAndDoesNotMoveFor10SecondsIsAStallOfItsLink) {
  Scripted s;
  s.tables[0] = {sending(0, 1, 5000)};
  for (int t = 0; t < 10; ++t) EXPECT_FALSE(s.at(t)) << t;
  EXPECT_FALSE(s.watch.stalled());
  const auto begun = s.at(10);
  ASSERT_TRUE(begun);
  ASSERT_EQ(begun->pairs.size(), 1u);
  EXPECT_EQ(begun->pairs[0].from, "a");
  EXPECT_EQ(begun->pairs[0].to, "b");
  EXPECT_EQ(begun->pairs[0].queued_bytes, 5000u);
  EXPECT_EQ(begun->pairs[0].cause(), "link");
  EXPECT_DOUBLE_EQ(begun->started_s, 0);
  EXPECT_FALSE(s.at(11));  // reported once
  EXPECT_TRUE(s.watch.stalled());
  EXPECT_NE(describe(begun->pairs).find("a -> b: 0.01 MB"), std::string::npos);
}

TEST(StallWatch, DataDeliveredButNotReadIsTheReceiversStall) {
  Scripted s;
  s.tables[0] = {sending(0, 2, 9000)};
  s.tables[2] = {receiving(2, 0, 70000)};  // c's agent does not read (paused)
  for (int t = 0; t < 10; ++t) s.at(t);
  const auto begun = s.at(10);
  ASSERT_TRUE(begun);
  EXPECT_EQ(begun->pairs[0].unread_bytes, 70000u);
  EXPECT_EQ(begun->pairs[0].cause(), "receiver");
}

TEST(StallWatch, MovingQueuesEmptyQueuesAndShortPausesAreNotStalls) {
  Scripted s;
  for (int t = 0; t < 30; ++t) {
    s.tables[0] = {sending(0, 1, 1000 + static_cast<uint64_t>(t % 3))};  // moving
    s.tables[1] = {sending(1, 2, 0)};                                    // idle
    // a -> c holds still for 5 s at a time, then moves: a pause.
    s.tables[0].push_back(sending(0, 2, 100 + static_cast<uint64_t>(t / 5)));
    EXPECT_FALSE(s.at(t)) << t;
  }
  EXPECT_FALSE(s.watch.stalled());
  EXPECT_TRUE(s.watch.to_json().empty());
}

TEST(StallWatch, ATrickleDoesNotEndAStallButTwentyQuietSecondsDo) {
  Scripted s;
  s.tables[0] = {sending(0, 1, 5000)};
  for (int t = 0; t <= 10; ++t) s.at(t);
  ASSERT_TRUE(s.watch.stalled());
  s.tables[0] = {sending(0, 1, 3552)};  // one segment through at 11 s
  for (int t = 11; t <= 20; ++t) EXPECT_FALSE(s.at(t));
  EXPECT_TRUE(s.watch.stalled());  // stuck again at 21 s, before 10 quiet seconds
  for (int t = 21; t <= 25; ++t) EXPECT_FALSE(s.at(t));
  s.tables[0] = {sending(0, 1, 0)};  // all acknowledged at 26 s
  for (int t = 26; t <= 44; ++t) EXPECT_FALSE(s.at(t));
  EXPECT_TRUE(s.watch.stalled());  // 19 quiet seconds
  EXPECT_FALSE(s.at(45));
  EXPECT_FALSE(s.watch.stalled());
  const auto stalls = s.watch.to_json();
  ASSERT_EQ(stalls.size(), 1u) << stalls;
  EXPECT_EQ(stalls[0]["ongoing"], false);
  EXPECT_DOUBLE_EQ(stalls[0]["seconds"].get<double>(), 25);  // 0 s to the last stuck, 25 s
}

TEST(StallWatch, TheSameBytesQueuedAtEveryLookWithoutATimeoutAreAFlowNotAStall) {
  Scripted s;
  // Small messages whose delayed acks land after the next one: 100 bytes at every look.
  s.tables[0] = {sending(0, 1, 100, /*retransmits=*/0)};
  for (int t = 0; t <= 30; ++t) EXPECT_FALSE(s.at(t)) << t;
  EXPECT_FALSE(s.watch.stalled());
  // A receiver whose window is shut: no timeouts, but zero-window probes. Stuck.
  Scripted z;
  z.tables[0] = {{kAddresses[0], kAddresses[1], 40000, kPort, 1, 100, 0, 0, 3}};
  for (int t = 0; t < 10; ++t) z.at(t);
  EXPECT_TRUE(z.at(10));
}

TEST(StallWatch, OtherSocketsOfTheNamespaceAreNotTheRuns) {
  Scripted s;
  // Each in recovery, so only what they are keeps them out.
  s.tables[0] = {{kAddresses[0], "10.0.0.9", 40000, kPort, 1, 5000, 0, 2, 0},      // not a node
                 {kAddresses[0], kAddresses[1], 40000, 5201, 1, 5000, 0, 2, 0},    // iperf3's
                 {kAddresses[0], kAddresses[1], 40000, kPort, 2, 5000, 0, 2, 0}};  // not estab.
  for (int t = 0; t <= 20; ++t) EXPECT_FALSE(s.at(t));
}

// Reading a namespace's table costs milliseconds (the kernel walks every namespace's
// sockets), so a sample reads nodes in turn within a budget of time; a queue is unchanged
// only from one read of its sender to the next, never for the time between.
TEST(StallWatch, ASampleReadsNodesInTurnWithinItsBudgetAndStillFindsTheStall) {
  const std::vector<std::string> names = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"};
  std::vector<std::string> addresses;
  for (size_t n = 0; n < names.size(); ++n)
    addresses.push_back("198.18.0." + std::to_string(n + 1));
  const Clock::time_point t0 = Clock::now();
  Clock::time_point read_clock = t0;  // each read takes 40 ms of it
  std::vector<size_t> reads;
  StallWatch watch(
      names, addresses, kPort,
      [&](size_t n) -> std::vector<TcpQueue> {
        reads.push_back(n);
        read_clock += std::chrono::milliseconds(40);
        if (n != 5) return {};
        return {{addresses[5], addresses[6], 40000, kPort, 1, 3000, 0, 2, 0}};  // stuck
      },
      t0, StallWatch::kStuckAfter, [&] { return read_clock; });
  // 100 ms a sample: three reads of 40 ms, the third past the budget.
  EXPECT_FALSE(watch.poll(t0));
  EXPECT_EQ(reads, (std::vector<size_t>{0, 1, 2}));
  EXPECT_FALSE(watch.poll(t0 + seconds(1)));
  EXPECT_EQ(reads, (std::vector<size_t>{0, 1, 2, 3, 4, 5}));
  // Sample k reads nodes 3k, 3k + 1 and 3k + 2 (mod 8): n5 at 1 s, 4 s, 7 s, 9 s and 12 s.
  // Its queue, the same since the read at 1 s, has been unchanged 10 s only at the read at
  // 12 s: not at 11 s, when n5 was last read at 9 s.
  for (int at = 2; at < 12; ++at) EXPECT_FALSE(watch.poll(t0 + seconds(at))) << at;
  const auto begun = watch.poll(t0 + seconds(12));
  ASSERT_TRUE(begun);
  ASSERT_EQ(begun->pairs.size(), 1u);
  EXPECT_EQ(begun->pairs[0].from, "n5");
  EXPECT_EQ(begun->pairs[0].to, "n6");
  EXPECT_DOUBLE_EQ(begun->pairs[0].seconds, 11);
  // Every node was read in turn, none twice before all once.
  for (size_t k = 0; k < reads.size(); ++k) EXPECT_EQ(reads[k], k % names.size()) << k;
  EXPECT_EQ(reads.size(), 13u * 3);
}

TEST(ProcNetTcp, ParsesTheKernelsTableAndSkipsWhatItCannotRead) {
  const std::string table =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
      "timeout inode\n"
      "   0: 010012C6:9C40 020012C6:1BBC 01 00001388:00000010 01:00000014 00000000     0   "
      "     0 123 1 0000000000000000 20 4 30 10 -1\n"
      "   1: garbage\n"
      "   2: 010012C6:9C40 020012C6:1BBC 01 zz:00\n";
  const auto rows = parse_proc_net_tcp(table);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].local_address, "198.18.0.1");
  EXPECT_EQ(rows[0].remote_address, "198.18.0.2");
  EXPECT_EQ(rows[0].local_port, 40000);
  EXPECT_EQ(rows[0].remote_port, 7100);
  EXPECT_EQ(rows[0].state, 1);
  EXPECT_EQ(rows[0].tx_queue, 5000u);
  EXPECT_EQ(rows[0].rx_queue, 16u);
  EXPECT_EQ(rows[0].retransmits, 0u);
  EXPECT_EQ(rows[0].probes, 0u);
  // A socket in recovery: 0x1A timeouts (the column is hex) and 12 probes (decimal).
  const auto recovering = parse_proc_net_tcp(
      "   0: 010012C6:9C40 020012C6:1BBC 01 00001388:00000000 01:00000014 0000001A     0   "
      "    12 123 1 0000000000000000 20 4 30 10 -1\n");
  ASSERT_EQ(recovering.size(), 1u);
  EXPECT_EQ(recovering[0].retransmits, 26u);
  EXPECT_EQ(recovering[0].probes, 12u);
  EXPECT_TRUE(parse_proc_net_tcp("").empty());
}

}  // namespace
}  // namespace testbed
