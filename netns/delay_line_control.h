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
// Sends the answers the turn's "stats" requests gathered, one datagram per asker where
// they fit (those that do not go to their files): once a turn, after every node's control.
void send_answers();

}  // namespace testbed::delay_line
