// What a delay line reports about itself on request ("stats FILE [REPLY]" on its control
// socket: in a datagram to the asker's socket REPLY when it fits, else in the file FILE;
// both are plain names in the lab's directory):
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
#include <utility>
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

// The largest answer sent as a datagram; a larger one (a hub's thousands of queues) goes to
// the file. Below the 212,992-byte socket buffers Linux gives by default, which bound a
// Unix datagram's size, with room for the kernel's own accounting of it.
constexpr size_t kMaxStatsReplyBytes = 60000;

// A datagram answer holds the answers of the nodes one process serves that were asked in
// one turn, each after a line naming the node's control socket: "from delayline-N.sock".
constexpr const char* kStatsSection = "from ";

std::string format_delay_line_stats(const std::vector<DelayLineQueueStats>& queues);
// A datagram answer's sections: each node's control socket's name and its answer's text.
// Text before the first section line, or a section without a name, throws
// std::invalid_argument.
std::vector<std::pair<std::string, std::string>> split_stats_sections(const std::string& text);
// Throws std::invalid_argument naming the line that is malformed.
std::vector<DelayLineQueueStats> parse_delay_line_stats(const std::string& text);

struct NfqueueDrops {
  uint64_t queue_dropped = 0, user_dropped = 0;
};
// Parses the kernel's nfnetlink_queue table (one line per bound queue: number, portid,
// total, copy mode, copy range, queue_dropped, user_dropped, id sequence, 1).
std::map<uint16_t, NfqueueDrops> parse_nfqueue_table(const std::string& text);

}  // namespace testbed
