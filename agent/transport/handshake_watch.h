// Whether a client socket's security handshakes succeed: a CURVE client that pins its
// server's key learns here that whoever answered is not that server (or refused its own key),
// instead of retrying in silence. Reads the socket's monitor events (RFC: zmq_socket_monitor)
// on a PAIR of the same context, from the thread that owns the socket.
#pragma once

#include <zmq.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace testbed {

class HandshakeWatch {
 public:
  enum class State { waiting, succeeded, failed };

  HandshakeWatch(zmq::context_t& context, zmq::socket_t& socket, const std::string& name);
  // Stops the monitor while its reading end is still open (van.cpp says why).
  ~HandshakeWatch();
  HandshakeWatch(const HandshakeWatch&) = delete;
  HandshakeWatch& operator=(const HandshakeWatch&) = delete;

  // Reads the events that arrived; a failure is final (the first one wins).
  State poll();
  // For a failure: what the socket's events said, in words.
  const std::string& why() const { return why_; }
  // Since when the connection has been closed and not made again (as of the last poll()):
  // the server's process ended, or the network between them failed.
  std::optional<std::chrono::steady_clock::time_point> disconnected_since() const {
    return disconnected_;
  }

 private:
  zmq::socket_t& socket_;
  zmq::socket_t monitor_;
  State state_ = State::waiting;
  std::string why_;
  std::optional<std::chrono::steady_clock::time_point> disconnected_;
};

}  // namespace testbed
