// The van's part of every setup command, whatever the protocol: each node's address, the
// run's secret, the largest frame a node reads, and over hosts the run's CURVE keys. The
// agent's runtime builds the van from it (agent/runtime/node_runtime.cpp) before the
// protocol reads the rest; each system's setup (TrainingSetup, TreeSetup) carries one.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "agent/contracts/message_fields.h"

namespace testbed {

struct VanSetup {
  std::vector<std::string> endpoints;  // each node's address, by node index; not empty
  std::string secret;                  // the run's; frames without it are dropped
  uint64_t max_message = 0;            // the largest frame a node reads; 0: no bound
  // Over hosts, the run's CURVE keys (agent/transport/curve_keys.h's VanCurve, checked by
  // the agent's runtime); null on one box, where `secret` guards the van.
  nlohmann::json van_curve;
  size_t nodes() const { return endpoints.size(); }
  bool operator==(const VanSetup&) const = default;
};

// Writes its four fields into `setup`, beside the protocol's.
void write_van_setup(nlohmann::json& setup, const VanSetup& v);
// Reads them from a setup, refusing each by name; the setup's other fields are its
// protocol's.
VanSetup van_setup_from(const FieldReader& setup);

// The van's field names, for a setup's check of unknown fields.
inline constexpr std::array<std::string_view, 4> kVanSetupFields = {"endpoints", "secret",
                                                                    "max_message", "van_curve"};

}  // namespace testbed
