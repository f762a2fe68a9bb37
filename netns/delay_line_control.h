// The delay line's control datagrams (see the top of delay_line_main.cpp for their form):
// a live delay change, and a node's figures written to a file beside its socket.
#pragma once

#include <cstdint>
#include <string>

#include "netns/delay_line_node.h"

namespace testbed::delay_line {

// Reads every datagram waiting on `node`'s control socket and acts on it; a datagram
// from another user is dropped, counted and logged. `home`: this process's namespace.
void handle_control(Node& node, int64_t window_cap_us, int home);

}  // namespace testbed::delay_line
