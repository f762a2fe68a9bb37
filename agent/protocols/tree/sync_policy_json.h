// A policy as JSON, the form the controller sends with every iteration and writes into
// the run's results. One codec for both ends, so they cannot drift apart.
#pragma once

#include <nlohmann/json.hpp>

#include "agent/protocols/tree/sync_policy.h"

namespace testbed {

nlohmann::json to_json(const SyncPolicy& policy);
// Throws nlohmann::json::exception on a malformed policy.
SyncPolicy policy_from_json(const nlohmann::json& j);

}  // namespace testbed
