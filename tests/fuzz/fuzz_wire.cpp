// The agent's wire decoder and its check that a message is the run's: what any process in
// a node can send to an agent's port, once past the handshake. The input is cut into
// frames, each a length byte and that many bytes (the last frame takes the rest), the
// first frame the connection's routing id. A malformed message throws runtime_error or is
// refused with a reason; a crash or a sanitizer's report is a finding.
#include <zmq.hpp>

#include <algorithm>
#include <stdexcept>

#include "agent/transport/wire.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<zmq::message_t> frames;
  size_t at = 0;
  while (at < size && frames.size() < 4) {
    size_t length = data[at++];
    // A length byte of 255 means "the rest", so frames longer than 254 bytes are reached.
    if (length == 255 || frames.size() == 3) length = size - at;
    length = std::min(length, size - at);
    frames.emplace_back(data + at, length);
    at += length;
  }
  const std::string connection = frames.empty() ? "" : frames[0].to_string();
  try {
    const testbed::Received r = testbed::decode(frames);
    // A run of four nodes, as node 1.
    testbed::not_this_runs(r, connection, 1, 4);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
