// The controller's decoding of its agents' replies (agent_reply.h): the first byte says how
// long the routing id is, the rest is the payload. Malformed replies are dropped (nullopt);
// nothing may throw.
#include "agent_reply.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t id_length = std::min<size_t>(data[0] % 16, size - 1);
  const std::string id = testbed::fuzz::text(data + 1, id_length);
  const std::string payload = testbed::fuzz::text(data + 1 + id_length, size - 1 - id_length);
  testbed::decode_agent_reply(id, payload, 8);
  return 0;
}
