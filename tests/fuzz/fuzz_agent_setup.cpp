// The agent's side of the control channel: what a node does with a command's bytes before
// acting on it. The payload is parsed as JSON (as NodeRuntime does), checked by the setup
// guard (agent/runtime/setup_guard.h) with a lab directory, read as a training setup
// (training_setup_from_json) or NetStorm's (tree_setup_from_json, and its probe and
// iterate commands) and, when it carries van keys, as those. Every refusal is a
// ContractError or a std::runtime_error (a command answered with an error event); nothing
// else may escape, crash or allocate without bound.
#include <stdexcept>

#include "agent/contracts/message_fields.h"
#include "agent/contracts/training_setup.h"
#include "agent/contracts/tree_messages.h"
#include "agent/runtime/setup_guard.h"
#include "agent/transport/curve_keys.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int self = data[0] % 4;
  const auto cmd = nlohmann::json::parse(testbed::fuzz::text(data + 1, size - 1), nullptr, false);
  if (cmd.is_discarded() || !cmd.is_object()) return 0;
  try {
    testbed::guard_setup(cmd, self, "/run/testbed/fuzz");
  } catch (const testbed::ContractError&) {
    return 0;  // refused before anything is made
  }
  try {
    testbed::training_setup_from_json(cmd);
  } catch (const testbed::ContractError&) {
  }
  try {
    testbed::tree_setup_from_json(cmd);
  } catch (const testbed::ContractError&) {
  }
  try {
    testbed::probe_links_from_json(cmd, 4);
  } catch (const testbed::ContractError&) {
  }
  try {
    testbed::iterate_command_from_json(cmd);
  } catch (const testbed::ContractError&) {
  }
  if (const auto v = cmd.find("van_curve"); v != cmd.end()) {
    try {
      testbed::van_curve_from_json(*v);
    } catch (const std::runtime_error&) {
    }
  }
  return 0;
}
