// A message on the wire: one ZeroMQ message of two frames, a fixed header and a payload.
// Both ends run on the same host (one clock), so the sender's timestamp lets the receiver
// measure a chunk's one-way time over the hop it crossed, which is how links are measured.
//
// A chunk belongs to a tree edge origin -> dest; it reaches dest directly (the primary
// path) or along a source route of physical hops (an auxiliary path), whose intermediate
// nodes forward it untouched. When the policy uses auxiliary paths, dest acknowledges each
// chunk to its origin so the origin knows what is still in flight on each route.
#pragma once

#include <zmq.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "agent/transport/chunk_message.h"

namespace testbed {

// kPush, kPull and kParams are the parameter server's (protocols/ps/ps_protocol.h): a
// worker's update, its request for parameters, and the shard's answer. The kMirror kinds
// are Gaia's between data centers (protocols/gaia/): significant updates (keys and
// deltas), the selective barrier (keys only), the mirror clock and the data's ack (none).
// The kWsp kinds are DRPS's WSP (protocols/drps/wsp_policy.h): a worker's request to the
// job's master, its word that an iteration began, and the master's grant to the shards.
enum class WireKind : uint8_t {
  kChunk = 1,
  kProbe = 2,
  kAck = 3,
  kPush = 4,
  kPull = 5,
  kParams = 6,
  kMirrorUpdate = 7,
  kMirrorBarrier = 8,
  kMirrorClock = 9,
  kMirrorAck = 10,
  kRing = 11,  // an all-reduce's message (protocols/allreduce/): values only (kDense),
               // in fp32 or another encoding (chunk_kind: value_codec.h)
  kWspAsk = 12,
  kWspStart = 13,
  kWspGrant = 14
};

// The longest source route a header carries, in nodes. Auxiliary routes longer than this
// are dropped by the policy builder: at 15 hops of WAN delay they would be of no help.
constexpr size_t kMaxRouteNodes = 16;
constexpr uint8_t kWantsAck = 1;
constexpr uint8_t kDense = 2;           // key-value messages: values of a whole shard, no keys
constexpr uint8_t kLatest = 4;          // a pull to answer at once, whatever the consistency model
constexpr uint8_t kOrdered = 8;         // a push with the scheduler's place in `tag` (MLfabric)
constexpr uint8_t kToAggregator = 16;   // an ordered push for an aggregator, not the server
constexpr uint8_t kToReplica = 32;      // an ordered push for the replica (or its aggregator)
constexpr uint8_t kToDistributor = 64;  // parameters for a distributor to pass on (MLfabric-S)
constexpr uint8_t kRelayed = 128;       // Gaia: another group's updates a hub passes on
// Gaia's selective barriers: the keys frame is a bitmap (key_bitmap.h). Barriers never
// carry kOrdered, MLfabric's pushes' flag, whose bit it shares: the eight are taken.
constexpr uint8_t kKeyBitmap = kOrdered;

// Key-value kinds whose payload is keys alone (no values).
constexpr bool keys_only(WireKind k) {
  return k == WireKind::kPull || k == WireKind::kMirrorBarrier || k == WireKind::kWspGrant;
}

struct WireHeader {
  WireKind kind = WireKind::kChunk;
  uint8_t chunk_kind = 0;  // ChunkMessage::Kind; kRing: its values' encoding (value_codec.h)
  uint8_t flags = 0;       // kWantsAck
  uint8_t route_nodes = 0;
  int32_t from = 0, to = 0;      // this hop
  int32_t origin = 0, dest = 0;  // the tree edge the chunk belongs to
  uint32_t chunk = 0;
  uint64_t iteration = 0;
  int64_t sent_ns = 0;  // CLOCK_MONOTONIC when this hop was sent
  // CLOCK_MONOTONIC when the origin handed it to its socket; relays keep it, so the
  // destination times the whole way, queues included (primary against auxiliary routes).
  int64_t origin_sent_ns = 0;
  uint64_t tag = 0;  // key-value messages: the min clock read (push) or reflected (params)
  uint32_t part = 0, parts = 1;  // key-value messages cut in segments (routed_transfer.h)
  int16_t route[kMaxRouteNodes] = {};

  std::vector<int> route_vector() const { return {route, route + route_nodes}; }
  // The node after `self` on the route; -1 when self is not on it or is its end.
  int next_after(int self) const;
};

int64_t monotonic_ns();

// Sends chunk `m` on `socket`, connected to route[1]; route is {m.from, ..., m.to}.
void send_chunk(zmq::socket_t& socket, const ChunkMessage& m, const std::vector<int>& route,
                bool wants_ack);
// Passes a received chunk on to the next hop of its route, stamped anew for that hop.
void forward_chunk(zmq::socket_t& socket, const WireHeader& received, int self, int next,
                   const std::vector<float>& data);
// Tells the chunk's origin that `received` arrived at its destination.
void send_ack(zmq::socket_t& socket, const WireHeader& received);
void send_probe(zmq::socket_t& socket, int from, int to, uint32_t seq, size_t bytes);
// A header with an empty payload, sent only if the socket takes it at once (ZeroMQ
// accepts a multipart message whole or not at all): false when its queue is full.
bool try_send_header(zmq::socket_t& socket, WireHeader header);
// A key-value message (kPush, kPull, kParams): `header` as filled by the caller, the
// payload the keys (unless kDense) followed by the values. Returns the bytes sent.
size_t send_kv(zmq::socket_t& socket, WireHeader header, const std::vector<uint32_t>& keys,
               const std::vector<float>& values);

struct Received {
  WireHeader header;
  ChunkMessage chunk;          // for kChunk: from/to are the tree edge's origin and dest
  std::vector<uint32_t> keys;  // for key-value messages
  std::vector<float> values;   // for key-value messages
  size_t payload_bytes = 0;
  int64_t received_ns = 0;
};

// Decodes the frames a ROUTER delivers: [peer identity][header][payload]. Throws
// std::runtime_error naming what is malformed (frames, header, kind, payload sizes).
Received decode(std::vector<zmq::message_t>& frames);

// Why a decoded message is not this run's, or "" when it is: node `self` of a run of
// `nodes`, the message from the connection whose routing id is `connection` (a member's
// dealer is named by its node index). Senders, hops and routes must be the run's nodes,
// and the sender the connection's.
std::string not_this_runs(const Received& r, const std::string& connection, int self, int nodes);

}  // namespace testbed
