// The sync-policy JSON codec (the tree strategies' policy, sent with every iteration and
// written into results): JSON text to a policy, refused by nlohmann::json::exception when
// malformed, and a decoded policy encodes again.
#include <nlohmann/json.hpp>

#include "agent/protocols/tree/sync_policy_json.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  try {
    const testbed::SyncPolicy policy = testbed::policy_from_json(j);
    testbed::to_json(policy);
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
