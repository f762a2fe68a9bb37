// A chunk on the wire: one ZeroMQ message of two frames, a fixed header and the floats.
// Both ends run on the same host (one clock), so the sender's timestamp lets the receiver
// measure a chunk's one-way time, which is how links are measured.
#pragma once

#include <zmq.hpp>

#include <cstdint>
#include <vector>

#include "tree_aggregator.h"

namespace testbed {

enum class WireKind : uint8_t { kChunk = 1, kProbe = 2 };

struct WireHeader {
  WireKind kind = WireKind::kChunk;
  uint8_t chunk_kind = 0;  // ChunkMessage::Kind
  uint16_t reserved = 0;
  int32_t from = 0, to = 0;
  uint32_t chunk = 0;
  uint64_t iteration = 0;
  int64_t sent_ns = 0;  // CLOCK_MONOTONIC at the sender
};

int64_t monotonic_ns();

// Sends `m` on `socket` (a DEALER connected to m.to).
void send_chunk(zmq::socket_t& socket, const ChunkMessage& m);
void send_probe(zmq::socket_t& socket, int from, int to, uint32_t seq, size_t bytes);

struct Received {
  WireHeader header;
  ChunkMessage chunk;  // for kChunk
  size_t payload_bytes = 0;
  int64_t received_ns = 0;
};

// Decodes the frames a ROUTER delivers: [peer identity][header][payload].
Received decode(std::vector<zmq::message_t>& frames);

}  // namespace testbed
