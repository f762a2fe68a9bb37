#include "agent/transport/handshake_watch.h"

#include <zmq_addon.hpp>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace testbed {
namespace {

constexpr int kEvents = ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                        ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH |
                        ZMQ_EVENT_DISCONNECTED;

}  // namespace

HandshakeWatch::HandshakeWatch(zmq::context_t& context, zmq::socket_t& socket,
                               const std::string& name)
    : socket_(socket), monitor_(context, zmq::socket_type::pair) {
  const std::string address = "inproc://tb-handshake-" + name;
  if (zmq_socket_monitor(socket.handle(), address.c_str(), kEvents) != 0)
    throw std::runtime_error(std::string("zmq_socket_monitor: ") + zmq_strerror(zmq_errno()));
  monitor_.set(zmq::sockopt::linger, 0);
  monitor_.connect(address);
}

HandshakeWatch::~HandshakeWatch() {
  zmq_socket_monitor(socket_.handle(), nullptr, 0);
}

HandshakeWatch::State HandshakeWatch::poll() {
  for (;;) {
    std::vector<zmq::message_t> event;
    if (!zmq::recv_multipart(monitor_, std::back_inserter(event), zmq::recv_flags::dontwait))
      return state_;
    if (event.empty() || event[0].size() < sizeof(uint16_t) + sizeof(uint32_t)) continue;
    uint16_t number = 0;
    uint32_t value = 0;
    std::memcpy(&number, event[0].data(), sizeof number);
    std::memcpy(&value, static_cast<const char*>(event[0].data()) + sizeof number, sizeof value);
    if (number == ZMQ_EVENT_DISCONNECTED) {
      if (!disconnected_) disconnected_ = std::chrono::steady_clock::now();
      continue;
    }
    if (state_ == State::failed) continue;
    if (number == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
      state_ = State::succeeded;
      disconnected_.reset();
    } else if (number == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) {
      state_ = State::failed;
      why_ = "the server refused this host's key (status " + std::to_string(value) + ")";
    } else {
      // A server without the pinned key cannot open the client's CURVE hello and drops the
      // connection (no detail), or speaks no CURVE at all (a protocol error).
      state_ = State::failed;
      why_ = number == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL
                 ? "the server failed the CURVE handshake (protocol error " +
                       std::to_string(value) + ")"
                 : "the server did not prove it holds the pinned key";
    }
  }
}

}  // namespace testbed
