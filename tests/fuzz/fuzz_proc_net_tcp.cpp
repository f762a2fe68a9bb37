// The kernel's socket table as the stall watch reads it (/proc/PID/net/tcp): lines that do
// not parse are skipped; nothing may throw.
#include "fuzz_input.h"
#include "netns/tcp_queues.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  testbed::parse_proc_net_tcp(testbed::fuzz::text(data, size));
  return 0;
}
