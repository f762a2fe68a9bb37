// A ZeroMQ ipc:// socket that only processes of this user (root) may use: the lab's
// control sockets (the agents', the exporter's events). Three locks, each enough alone:
// the lab's directory is 0700, the socket file is made 0600, and the socket refuses any
// peer whose SO_PEERCRED uid differs (libzmq's IPC filter: a refused peer is disconnected
// before any of its messages is read).
#pragma once

#include <string>
#include <zmq.hpp>

namespace testbed {

// Binds `socket` at ipc://`path`, open to this process's user only.
void bind_private_ipc(zmq::socket_t& socket, const std::string& path);

}  // namespace testbed
