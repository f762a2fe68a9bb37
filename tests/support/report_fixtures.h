// Final reports for the tests of systems' sections (tests/unit/*_report_test.cpp): a
// parameter-server core's report to add a system's sections to, and a good report with one
// field changed or removed, to see the change refused by name.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/contracts/node_replies.h"
#include "agent/contracts/ps_node_report.h"

namespace tb::test {

// A final report with the van's counters and a shard of two keys in role `role`.
inline nlohmann::json ps_core_report(const char* role) {
  nlohmann::json j;
  testbed::write_van_counters(j, testbed::VanCounters{});
  j["event"] = testbed::kStatsEvent;
  testbed::PsNodeReport r;
  testbed::ShardReport& s = r.shard.emplace();
  s.role = role;
  s.end = 2;
  testbed::write_ps_node_report(j, r);
  return j;
}

// The value that removes a field in with_field.
inline const nlohmann::json kRemoved(nlohmann::json::value_t::discarded);

// `j` with the field at `path` (object keys, or list indexes in digits) set to `v`, or
// removed when `v` is kRemoved.
inline nlohmann::json with_field(nlohmann::json j, const std::vector<std::string>& path,
                                 nlohmann::json v) {
  nlohmann::json* at = &j;
  const auto step = [](nlohmann::json* in, const std::string& key) {
    return in->is_array() ? &(*in)[std::stoul(key)] : &(*in)[key];
  };
  for (size_t i = 0; i + 1 < path.size(); ++i) at = step(at, path[i]);
  if (!v.is_discarded())
    *step(at, path.back()) = std::move(v);
  else if (at->is_array())
    at->erase(std::stoul(path.back()));
  else
    at->erase(path.back());
  return j;
}

}  // namespace tb::test
