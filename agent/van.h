// The transport between nodes (ps-lite's "van"): each node binds one ROUTER on its own
// address to receive, and opens one DEALER per peer to send, over TCP across the emulated
// links. It counts bytes per neighbour. The ZeroMQ context is passed in.
#pragma once

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "wire.h"

namespace testbed {

class Van {
 public:
  // endpoints[n] is node n's "tcp://ADDRESS:PORT"; this node binds endpoints[self].
  Van(zmq::context_t& context, int self, std::vector<std::string> endpoints);
  Van(const Van&) = delete;
  Van& operator=(const Van&) = delete;

  void send(const ChunkMessage& m);
  void probe(int to, uint32_t seq, size_t bytes);
  // The next message, or nullopt after `timeout`.
  std::optional<Received> receive(std::chrono::milliseconds timeout);

  const std::map<int, uint64_t>& bytes_sent() const { return bytes_sent_; }
  const std::map<int, uint64_t>& bytes_received() const { return bytes_received_; }

 private:
  zmq::socket_t& dealer(int to);

  zmq::context_t& context_;
  int self_;
  std::vector<std::string> endpoints_;
  zmq::socket_t router_;
  std::map<int, zmq::socket_t> dealers_;
  std::map<int, uint64_t> bytes_sent_, bytes_received_;
};

}  // namespace testbed
