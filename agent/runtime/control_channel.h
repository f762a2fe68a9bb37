// The agent's end of the controller's channel: a DEALER whose routing id is the node index.
//
// On the controller's host the channel is a filesystem socket (ipc://), which no shaped link
// carries. On another host of a lab spread over hosts (docs/multihost.md) it is TCP to the
// controller over the hosts' own network, which the node's namespace cannot reach: so the
// socket is made in the host's namespace (`control_netns`) by a ZeroMQ context of its own,
// whose I/O thread, started there, keeps every connection and reconnection in the host's
// network, while the node's model traffic stays in the node's namespace on another context.
#pragma once

#include <zmq.hpp>

#include <string>

namespace testbed {

// Connects `context`'s new DEALER to `endpoint` as node `self`. With `control_netns` (a
// path such as /proc/PID/ns/net) the calling thread enters that namespace for the socket's
// first use and returns to its own; throws std::system_error naming the failed call.
zmq::socket_t connect_control(zmq::context_t& context, const std::string& endpoint, int self,
                              const std::string& control_netns = "");

}  // namespace testbed
