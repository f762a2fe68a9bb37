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

#include <cstdint>
#include <string>

#include "agent/transport/curve_keys.h"

namespace testbed {

// The largest command a controller sends an agent: a setup carries the run's endpoints,
// routes and options, tens of kilobytes for the largest labs; 64 MiB leaves a thousand times
// that while refusing a declared gigabyte before it is allocated (ZMQ_MAXMSGSIZE).
constexpr int64_t kControlFrameBound = int64_t{64} << 20;
// Commands queued unread at most: the controller sends a few per iteration.
constexpr int kControlHighWaterMark = 1000;

// Over hosts the channel is CURVE: this host's key pair, and the controller's public key,
// pinned: a server without its secret half fails the handshake.
struct ControlCurve {
  CurveKeyPair own;
  std::string server_public;
};

// Sets a DEALER's CURVE client options (also `testbed agents`' own channel).
void set_control_curve(zmq::socket_t& socket, const ControlCurve& curve);

// Connects `context`'s new DEALER to `endpoint` as node `self`. With `control_netns` (a
// path such as /proc/PID/ns/net) the calling thread enters that namespace for the socket's
// first use and returns to its own; throws std::system_error naming the failed call.
zmq::socket_t connect_control(zmq::context_t& context, const std::string& endpoint, int self,
                              const std::string& control_netns = "",
                              const ControlCurve* curve = nullptr);

}  // namespace testbed
