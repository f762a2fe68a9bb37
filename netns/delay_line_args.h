// The delay line's command line: the nodes it serves and their queues (see the top of
// delay_line_main.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "netns/delay_line_node.h"

namespace testbed::delay_line {

extern const char* const kUsage;

// Reads the nodes; false (after saying why) on a malformed command line.
bool parse(int argc, char** argv, std::vector<Node>& nodes, int64_t& window_cap_us);

}  // namespace testbed::delay_line
