// The controller's decoding of what arrives on its agents' channel: an agent's reply
// (agent_reply.h) or, over hosts, a host's report (remote_hosts.h). The first byte says
// how long the routing id is, the rest is the payload. Malformed frames are dropped
// (nullopt, false); nothing may throw but a well-formed "died" report, which ends a run by
// design (std::runtime_error naming the node).
#include <stdexcept>

#include "controller/training/agent_reply.h"
#include "controller/training/remote_hosts.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t id_length = std::min<size_t>(data[0] % 16, size - 1);
  const std::string id = testbed::fuzz::text(data + 1, id_length);
  const std::string payload = testbed::fuzz::text(data + 1 + id_length, size - 1 - id_length);
  testbed::decode_agent_reply(id, payload, 8);
  // Nodes 4-7 run on other hosts (h1 and h2 by the placement); h1 has claimed node 4.
  testbed::RemoteHosts hosts({"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"},
                             {false, false, false, false, true, true, true, true},
                             {"h0", "h0", "h0", "h0", "h1", "h1", "h2", "h2"});
  const auto now = testbed::RemoteHosts::Clock::now();
  hosts.hear("host/h1", R"({"event":"beat","nodes":[4]})", now);
  try {
    hosts.hear(id, payload, now);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
