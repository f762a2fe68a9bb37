// The agents' counters summed over nodes: the session's summary and a policy's (the disk
// store's) add the shards' figures the same way, whole numbers kept whole.
#pragma once

#include <nlohmann/json.hpp>

namespace testbed {

// Adds every counter of `from` into `into`.
inline void add_counters(nlohmann::json& into, const nlohmann::json& from) {
  for (const auto& [key, v] : from.items())
    into[key] = v.is_number_unsigned()
                    ? nlohmann::json(into.value(key, uint64_t{0}) + v.get<uint64_t>())
                    : nlohmann::json(into.value(key, 0.0) + v.get<double>());
}

}  // namespace testbed
