#include "agent/transport/wire.h"

#include <time.h>

#include <cstring>
#include <stdexcept>

#include "agent/transport/value_codec.h"

namespace testbed {
namespace {

void send_frames(zmq::socket_t& socket, WireHeader& h, const void* payload, size_t bytes) {
  h.sent_ns = monotonic_ns();
  if (h.origin_sent_ns == 0) h.origin_sent_ns = h.sent_ns;
  socket.send(zmq::buffer(&h, sizeof h), zmq::send_flags::sndmore);
  socket.send(zmq::buffer(payload, bytes), zmq::send_flags::none);
}

}  // namespace

int WireHeader::next_after(int self) const {
  for (size_t i = 0; i + 1 < route_nodes; ++i) {
    if (route[i] == self) return route[i + 1];
  }
  return -1;
}

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void send_chunk(zmq::socket_t& socket, const ChunkMessage& m, const std::vector<int>& route,
                bool wants_ack) {
  if (route.size() < 2 || route.size() > kMaxRouteNodes || route.front() != m.from ||
      route.back() != m.to) {
    throw std::logic_error("a chunk's route must run from its sender to its receiver");
  }
  WireHeader h;
  h.kind = WireKind::kChunk;
  h.chunk_kind = static_cast<uint8_t>(m.kind);
  h.flags = wants_ack ? kWantsAck : 0;
  h.route_nodes = static_cast<uint8_t>(route.size());
  for (size_t i = 0; i < route.size(); ++i) h.route[i] = static_cast<int16_t>(route[i]);
  h.from = m.from;
  h.to = route[1];
  h.origin = m.from;
  h.dest = m.to;
  h.chunk = m.chunk;
  h.iteration = m.iteration;
  send_frames(socket, h, m.data.data(), m.data.size() * sizeof(float));
}

void forward_chunk(zmq::socket_t& socket, const WireHeader& received, int self, int next,
                   const std::vector<float>& data) {
  WireHeader h = received;
  h.from = self;
  h.to = next;
  send_frames(socket, h, data.data(), data.size() * sizeof(float));
}

void send_ack(zmq::socket_t& socket, const WireHeader& received) {
  WireHeader h = received;
  h.kind = WireKind::kAck;
  h.from = received.dest;
  h.to = received.origin;
  send_frames(socket, h, nullptr, 0);
}

void send_probe(zmq::socket_t& socket, int from, int to, uint32_t seq, size_t bytes) {
  WireHeader h;
  h.kind = WireKind::kProbe;
  h.from = h.origin = from;
  h.to = h.dest = to;
  h.chunk = seq;
  std::vector<char> payload(bytes, 0);
  send_frames(socket, h, payload.data(), bytes);
}

bool try_send_header(zmq::socket_t& socket, WireHeader header) {
  header.sent_ns = monotonic_ns();
  if (header.origin_sent_ns == 0) header.origin_sent_ns = header.sent_ns;
  const auto first = zmq::send_flags::sndmore | zmq::send_flags::dontwait;
  if (!socket.send(zmq::buffer(&header, sizeof header), first)) return false;
  // The first part was taken: ZeroMQ takes the rest of the message without blocking.
  socket.send(zmq::const_buffer(nullptr, 0), zmq::send_flags::none);
  return true;
}

size_t send_kv(zmq::socket_t& socket, WireHeader header, const std::vector<uint32_t>& keys,
               const std::vector<float>& values) {
  if (header.kind == WireKind::kRing && header.chunk_kind != 0) {
    // An all-reduce's values in fewer bits (value_codec.h): values only, as a ring's are.
    const ValueCodec* codec = value_codec_by_id(header.chunk_kind);
    if (codec == nullptr) throw std::invalid_argument("send_kv: unknown value encoding");
    const std::vector<uint8_t> payload = codec->encode(values);
    send_frames(socket, header, payload.data(), payload.size());
    return sizeof header + payload.size();
  }
  const bool dense = header.flags & kDense;
  const size_t key_bytes = dense ? 0 : keys.size() * sizeof(uint32_t);
  std::vector<uint8_t> payload(key_bytes + values.size() * sizeof(float));
  if (key_bytes) std::memcpy(payload.data(), keys.data(), key_bytes);
  if (!values.empty())
    std::memcpy(payload.data() + key_bytes, values.data(), payload.size() - key_bytes);
  send_frames(socket, header, payload.data(), payload.size());
  return sizeof header + payload.size();
}

Received decode(std::vector<zmq::message_t>& frames) {
  if (frames.size() != 3 || frames[1].size() != sizeof(WireHeader)) {
    throw std::runtime_error("malformed message: " + std::to_string(frames.size()) + " frames");
  }
  Received r;
  r.received_ns = monotonic_ns();
  std::memcpy(&r.header, frames[1].data(), sizeof r.header);
  if (r.header.route_nodes > kMaxRouteNodes) throw std::runtime_error("malformed route");
  const auto kind = static_cast<uint8_t>(r.header.kind);
  if (kind < static_cast<uint8_t>(WireKind::kChunk) ||
      kind > static_cast<uint8_t>(WireKind::kWspGrant))
    throw std::runtime_error("malformed message: unknown kind " + std::to_string(kind));
  r.payload_bytes = frames[2].size();
  if (r.header.kind == WireKind::kRing && r.header.chunk_kind != 0) {
    const ValueCodec* codec = value_codec_by_id(r.header.chunk_kind);
    if (codec == nullptr)
      throw std::runtime_error("malformed message: value encoding " +
                               std::to_string(r.header.chunk_kind));
    r.values = codec->decode(static_cast<const uint8_t*>(frames[2].data()), r.payload_bytes);
    return r;
  }
  // The payload must be whole values (and keys): a length that disagrees is not ours. A
  // probe's payload is filler of any length.
  const bool kv = r.header.kind >= WireKind::kPush;
  const bool pull = keys_only(r.header.kind);
  const size_t unit = r.header.kind == WireKind::kProbe          ? 1
                      : !kv || (r.header.flags & kDense) || pull ? sizeof(float)
                                                                 : sizeof(uint32_t) + sizeof(float);
  if (r.payload_bytes % unit != 0)
    throw std::runtime_error("malformed message: a payload of " + std::to_string(r.payload_bytes) +
                             " bytes is not whole values");
  if (r.header.kind == WireKind::kChunk) {
    r.chunk.kind = static_cast<ChunkMessage::Kind>(r.header.chunk_kind);
    r.chunk.iteration = r.header.iteration;
    r.chunk.chunk = r.header.chunk;
    r.chunk.from = r.header.origin;
    r.chunk.to = r.header.dest;
    r.chunk.data.resize(frames[2].size() / sizeof(float));
    // memcpy of nothing from an empty frame's null pointer is still undefined: skip it.
    if (!r.chunk.data.empty())
      std::memcpy(r.chunk.data.data(), frames[2].data(), r.chunk.data.size() * sizeof(float));
  } else if (r.header.kind >= WireKind::kPush) {
    // A pull, a barrier or a WSP grant carries keys only; a push, params or a mirror update
    // keys and values, one of each per key; a mirror clock, an ack, a WSP request or start
    // nothing; a ring segment values.
    const bool dense = r.header.flags & kDense;
    const size_t per_key = pull ? sizeof(uint32_t) : sizeof(uint32_t) + sizeof(float);
    const size_t n =
        dense ? (pull ? 0 : r.payload_bytes / sizeof(float)) : r.payload_bytes / per_key;
    const auto* bytes = static_cast<const uint8_t*>(frames[2].data());
    if (n == 0) return r;  // no keys or values: nothing to copy (and no pointer to copy from)
    if (!dense) {
      r.keys.resize(n);
      std::memcpy(r.keys.data(), bytes, n * sizeof(uint32_t));
    }
    if (!pull) {
      r.values.resize(n);
      std::memcpy(r.values.data(), bytes + (dense ? 0 : n * sizeof(uint32_t)), n * sizeof(float));
    }
  }
  return r;
}

std::string not_this_runs(const Received& r, const std::string& connection, int self, int nodes) {
  const WireHeader& h = r.header;
  for (int32_t node : {h.from, h.to, h.origin, h.dest})
    if (node < 0 || node >= nodes) return "node " + std::to_string(node) + " is not in this run";
  if (h.to != self) return "addressed to node " + std::to_string(h.to);
  for (size_t i = 0; i < h.route_nodes; ++i)
    if (h.route[i] < 0 || h.route[i] >= nodes) return "a route through a node not in this run";
  if (connection != std::to_string(h.from)) return "sent by another connection";
  return "";
}

}  // namespace testbed
