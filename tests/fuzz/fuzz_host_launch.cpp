// The messages of a launch across hosts (controller/launch/host_launch_messages.h), as each
// end reads them from the other: a host reads a LaunchCommand, the controller reads HostLines
// and HostRanksDone. The first byte picks the job's size (1 to 64 ranks), the rest is the
// frame. Every refusal is a MalformedMessage; nothing else may escape or crash. What is
// accepted must come back unchanged through to_json and a second parse: the two ends share
// the struct, so what one writes the other must read as it was.
#include <cstdlib>

#include "controller/launch/host_launch_messages.h"
#include "fuzz_input.h"

namespace {

// Parse, write back, parse again: the second reading must write the same JSON.
template <typename Parse>
void round_trip(const nlohmann::json& j, Parse parse) {
  try {
    const auto first = testbed::to_json(parse(j));
    if (testbed::to_json(parse(first)) != first) std::abort();
  } catch (const testbed::MalformedMessage&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // 64 ranks: more than any lab here has nodes, few enough that rank bounds are met often.
  const int world_size = 1 + data[0] % 64;
  const auto j = nlohmann::json::parse(testbed::fuzz::text(data + 1, size - 1), nullptr, false);
  if (j.is_discarded()) return 0;
  round_trip(j, [](const nlohmann::json& m) { return testbed::launch_command_from_json(m); });
  round_trip(j,
             [&](const nlohmann::json& m) { return testbed::host_lines_from_json(m, world_size); });
  round_trip(j, [&](const nlohmann::json& m) {
    return testbed::host_ranks_done_from_json(m, world_size);
  });
  return 0;
}
