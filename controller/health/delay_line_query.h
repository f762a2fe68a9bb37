// Asks a lab's delay lines for their figures: a "stats FILE REPLY" datagram on each control
// socket, then the answer as a datagram on this call's socket REPLY, or, too large for one,
// the file the delay line writes (by rename, so it is whole when it exists).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netns/delay_line_stats.h"

namespace testbed {

// Every node's, by node and then queue number. Nodes whose delay line does not answer within
// `timeout_ms` (it is gone, or too starved to read its socket: either way no figures) are
// left out.
using DelayLineSnapshot = std::map<std::string, std::map<uint16_t, DelayLineQueueStats>>;
DelayLineSnapshot query_delay_lines(const std::string& lab_dir,
                                    const std::vector<std::string>& nodes, int timeout_ms);

}  // namespace testbed
