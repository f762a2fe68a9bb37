#include "wire.h"

#include <time.h>

#include <cstring>
#include <stdexcept>

namespace testbed {

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

void send_chunk(zmq::socket_t& socket, const ChunkMessage& m) {
  WireHeader h;
  h.kind = WireKind::kChunk;
  h.chunk_kind = static_cast<uint8_t>(m.kind);
  h.from = m.from;
  h.to = m.to;
  h.chunk = m.chunk;
  h.iteration = m.iteration;
  h.sent_ns = monotonic_ns();
  socket.send(zmq::buffer(&h, sizeof h), zmq::send_flags::sndmore);
  socket.send(zmq::buffer(m.data.data(), m.data.size() * sizeof(float)), zmq::send_flags::none);
}

void send_probe(zmq::socket_t& socket, int from, int to, uint32_t seq, size_t bytes) {
  WireHeader h;
  h.kind = WireKind::kProbe;
  h.from = from;
  h.to = to;
  h.chunk = seq;
  h.sent_ns = monotonic_ns();
  socket.send(zmq::buffer(&h, sizeof h), zmq::send_flags::sndmore);
  zmq::message_t payload(bytes);
  std::memset(payload.data(), 0, bytes);
  socket.send(payload, zmq::send_flags::none);
}

Received decode(std::vector<zmq::message_t>& frames) {
  if (frames.size() != 3 || frames[1].size() != sizeof(WireHeader)) {
    throw std::runtime_error("malformed message: " + std::to_string(frames.size()) + " frames");
  }
  Received r;
  r.received_ns = monotonic_ns();
  std::memcpy(&r.header, frames[1].data(), sizeof r.header);
  r.payload_bytes = frames[2].size();
  if (r.header.kind == WireKind::kChunk) {
    r.chunk.kind = static_cast<ChunkMessage::Kind>(r.header.chunk_kind);
    r.chunk.iteration = r.header.iteration;
    r.chunk.chunk = r.header.chunk;
    r.chunk.from = r.header.from;
    r.chunk.to = r.header.to;
    r.chunk.data.resize(frames[2].size() / sizeof(float));
    std::memcpy(r.chunk.data.data(), frames[2].data(), r.chunk.data.size() * sizeof(float));
  }
  return r;
}

}  // namespace testbed
