// Asks a lab's delay lines for their figures: a "stats FILE" datagram on each control
// socket, then the file the delay line writes (by rename, so it is whole when it exists).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netns/delay_line_stats.h"

namespace testbed {

// The delay line of `node` in the lab at `lab_dir`; nullopt when it does not answer within
// `timeout_ms` (it is gone, or too starved to read its socket: either way no figures).
std::optional<std::vector<DelayLineQueueStats>> query_delay_line(const std::string& lab_dir,
                                                                 const std::string& node,
                                                                 int timeout_ms);

// Every node's, by node and then queue number; nodes that did not answer are left out.
using DelayLineSnapshot = std::map<std::string, std::map<uint16_t, DelayLineQueueStats>>;
DelayLineSnapshot query_delay_lines(const std::string& lab_dir,
                                    const std::vector<std::string>& nodes, int timeout_ms);

}  // namespace testbed
