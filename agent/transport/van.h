// The transport between nodes (ps-lite's "van"): each node binds one ROUTER on its own
// address to receive, and opens one DEALER per peer to send, over TCP across the emulated
// links.
//
// A thread of its own does nothing but take messages off the ROUTER and stamp their
// arrival, handing them on over an in-process socket without limit. So arrival times stay
// true while the node is busy (they time the links), and a node blocked sending to a peer
// whose queue is full still drains its own: two such nodes cannot deadlock. It counts bytes per
// neighbour, by the hop they crossed. The ZeroMQ context is passed in.
//
// Anything in a node can reach the van's port (a user's job, a port scanner), so what
// arrives is untrusted. With the run's secret, a connection is heard only when it presents
// it (ZeroMQ's PLAIN mechanism, checked by a ZAP handler on the receiving thread); others
// fail the handshake and are counted as refused. A run spread over hosts sends its van
// traffic over the hosts' own network too, where PLAIN would show the secret to anyone on
// the path: there the van speaks CURVE with the run's keys (curve_keys.h) instead, every
// connection encrypted and admitted only with the run's client key. A message that does not decode
// (frames, header, sizes that disagree, a sender or hop that is not this run's) is dropped and
// counted by the connection it came on; a connection that sends kMuteAfter of them is
// muted, everything it sends dropped unread. A frame longer than the run's largest message
// is refused by ZeroMQ from its declared length, before anything is allocated, and its
// connection cut (counted as dropped). None of these ends the run.
#pragma once

#include <nlohmann/json.hpp>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/transport/curve_keys.h"
#include "agent/transport/wire.h"

namespace testbed {

class Van {
 public:
  // A connection muted after this many malformed messages: a member gone wrong, or a
  // stranger that knew the secret; a hundred is far beyond any loss of framing by accident.
  static constexpr uint64_t kMuteAfter = 100;

  // endpoints[n] is node n's "tcp://ADDRESS:PORT"; this node binds endpoints[self]. An empty
  // `secret` hears any connection (the in-memory tests); a run's agents always get one.
  // `max_message` bounds a frame's bytes (the run's largest payload; 0: no bound). With
  // `curve`, connections are CURVE with the run's keys and `secret` is not used.
  Van(zmq::context_t& context, int self, std::vector<std::string> endpoints,
      const std::string& secret = "", uint64_t max_message = 0,
      std::optional<VanCurve> curve = std::nullopt);
  Van(const Van&) = delete;
  Van& operator=(const Van&) = delete;

  // Sends chunk `m` along `route` ({m.from, ..., m.to}; two nodes for the direct path).
  void send(const ChunkMessage& m, const std::vector<int>& route, bool wants_ack);
  // Passes `r`, a chunk on an auxiliary route through this node, to its next hop.
  void forward(const Received& r, int next);
  void acknowledge(const Received& r);
  void probe(int to, uint32_t seq, size_t bytes);
  // A key-value message to `to` (see send_kv); from, to and the send time are filled here.
  void send_kv(int to, WireHeader header, const std::vector<uint32_t>& keys,
               const std::vector<float>& values);
  // A header alone to `to`, only if its queue has room now: false, and nothing sent, when
  // the peer's queue is full (a peer cut off, whose messages pile up: a heartbeat to it
  // must never block the node).
  bool try_send_header(int to, WireHeader header);
  // The endpoint bound, resolved ("tcp://127.0.0.1:*" becomes its port).
  const std::string& endpoint() const { return bound_; }
  // For polling alongside other sockets: readable when a message is waiting.
  zmq::socket_t& inbox() { return inbox_; }
  ~Van();
  // The next message, or nullopt after `timeout`.
  std::optional<Received> receive(std::chrono::milliseconds timeout);

  const std::map<int, uint64_t>& bytes_sent() const { return bytes_sent_; }
  const std::map<int, uint64_t>& bytes_received() const { return bytes_received_; }
  // Malformed messages dropped, by the connection's routing id (a member's node index, or
  // the id ZeroMQ gave a stranger); connections refused at the handshake.
  const std::map<std::string, uint64_t>& malformed() const { return malformed_; }
  uint64_t refused_connections() const { return refused_; }
  // Connections cut after their handshake: one that sent a frame over max_message, or a
  // peer whose process went away.
  uint64_t dropped_connections() const { return dropped_; }

 private:
  zmq::socket_t& dealer(int to);

  zmq::context_t& context_;
  int self_;
  std::vector<std::string> endpoints_;
  void answer_zap(zmq::socket_t& zap);                    // on the receiving thread
  void note_accept_failure(const zmq::message_t& event);  // on the receiving thread

  zmq::socket_t router_;  // used by the receiving thread only, once it runs
  zmq::socket_t inbox_;   // what that thread received, stamped, for this one
  zmq::socket_t stop_;    // a message on it ends the receiving thread
  std::thread receiver_;
  std::map<int, zmq::socket_t> dealers_;
  std::map<int, uint64_t> bytes_sent_, bytes_received_;
  std::string secret_;
  std::optional<VanCurve> curve_;
  std::string bound_;
  std::map<std::string, uint64_t> malformed_;
  std::atomic<uint64_t> refused_{0};  // written by the receiving thread
  std::atomic<uint64_t> dropped_{0};  // written by the receiving thread
  uint64_t accept_failures_ = 0;      // the receiving thread's alone
};

}  // namespace testbed
