// What a delay line reports about itself on request ("stats PATH" on its control socket):
// per queue, the packets it released, how late (a LatenessHistogram), how late less the
// delay line's own wake-up stalls (the emulator's part), and what the kernel dropped
// before we saw it. All counts are cumulative over the delay line's life; readers
// subtract a snapshot taken at the start of their run.
//
// The file holds one line per queue:
//   queue NUM released N queue_dropped N user_dropped N lateness B:C ... max:US
//     emulator B:C ... max:US
// (one line; a delay line built before the emulator part existed omits it, and readers
// then take the whole lateness as the emulator's).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "netns/lateness_histogram.h"

namespace testbed {

struct DelayLineQueueStats {
  uint16_t queue = 0;
  uint64_t released = 0;
  // From the kernel's /proc/net/netfilter/nfnetlink_queue: packets dropped because the
  // queue held kQueueMaxLen already, and because the notification did not fit our socket.
  uint64_t queue_dropped = 0, user_dropped = 0;
  LatenessHistogram lateness, emulator_lateness;
};

std::string format_delay_line_stats(const std::vector<DelayLineQueueStats>& queues);
// Throws std::invalid_argument naming the line that is malformed.
std::vector<DelayLineQueueStats> parse_delay_line_stats(const std::string& text);

struct NfqueueDrops {
  uint64_t queue_dropped = 0, user_dropped = 0;
};
// Parses the kernel's nfnetlink_queue table (one line per bound queue: number, portid,
// total, copy mode, copy range, queue_dropped, user_dropped, id sequence, 1).
std::map<uint16_t, NfqueueDrops> parse_nfqueue_table(const std::string& text);

}  // namespace testbed
