// Key-value messages along source routes (APSP: every worker reaches the server by the
// path the placement chose, and relays forward without aggregating). A message is cut in
// segments of kSegmentBytes; each carries its route in its header, so a relay knows the
// next hop from the message alone. Two ways to cross the relays:
//   kModel   the paper's model: a relay stores a whole message before forwarding it, and
//            every hop of a flow is paced at that flow's rate b_f (sum of b_f on a link <=
//            its capacity, so flows never queue behind one another)
//   kNative  cut-through: a relay forwards each segment on arrival, nothing is paced, and
//            flows share links as TCP shares them
// Messages between nodes without a route go straight to the destination's address, over
// the kernel's routes, as before.
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "agent/transport/van.h"

namespace testbed {

enum class TransferMode { kModel, kNative };
TransferMode transfer_mode_from(const std::string& name);  // "model", "native"

// 64 KiB: small enough that pacing at a few MB/s sends a segment every few milliseconds
// (the event loop's resolution), large enough that per-message costs stay small.
constexpr size_t kSegmentBytes = 64 * 1024;

struct Route {
  std::vector<int> nodes;       // from ... to
  double pace_bytes_per_s = 0;  // kModel: payload bytes per second on every hop
};

class RoutedTransfer {
 public:
  RoutedTransfer(Van& van, int self) : van_(van), self_(self) {}
  // `routes`, each also used backwards (the pull's answer returns the way the push came).
  void configure(TransferMode mode, const std::vector<Route>& routes);
  bool routed() const { return !routes_.empty(); }

  // Sends to `dest` along its route, or directly when there is none.
  void send(int dest, WireHeader h, const std::vector<uint32_t>& keys,
            const std::vector<float>& values);
  // A key-value message received: forwarded when this node is a relay (nullopt), kept
  // when it is a part of a message for this node, returned whole with its last part.
  std::optional<Received> receive(Received r);

  void tick();                                // sends what the pacing allows by now
  std::chrono::milliseconds timeout() const;  // until the next paced send; -1: none due
  uint64_t relayed_bytes() const { return relayed_bytes_; }

 private:
  using Clock = std::chrono::steady_clock;
  using MessageKey = std::tuple<uint8_t, int, int, uint32_t, uint64_t, uint8_t>;
  struct Segment {
    int next = 0;
    WireHeader header;
    std::vector<uint32_t> keys;
    std::vector<float> values;
  };
  struct Flow {  // one direction of a route, as this node sends it on
    double pace_bytes_per_s = 0;
    Clock::time_point free_at{};  // when the previous segment's time on the hop is over
    std::deque<std::pair<Clock::time_point, Segment>> queue;
  };

  // Cuts a message into segments and sends or queues them for the hop after this node.
  void send_segments(int next, WireHeader h, const std::vector<uint32_t>& keys,
                     const std::vector<float>& values, double pace);
  const Route* route_of(int from, int to) const;

  Van& van_;
  int self_;
  TransferMode mode_ = TransferMode::kNative;
  std::map<std::pair<int, int>, Route> routes_;  // (from, to), both directions
  std::map<std::pair<int, int>, Flow> flows_;    // (origin, dest) of what is paced
  std::map<MessageKey, std::vector<Received>> partial_;
  uint64_t relayed_bytes_ = 0;
};

}  // namespace testbed
