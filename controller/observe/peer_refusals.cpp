#include "controller/observe/peer_refusals.h"

namespace testbed {

nlohmann::json peer_refusals(const std::vector<VanCounters>& counters,
                             const std::vector<std::string>& names) {
  nlohmann::json malformed = nlohmann::json::object(), refused = nlohmann::json::object(),
                 dropped = nlohmann::json::object();
  uint64_t malformed_total = 0, refused_total = 0;
  for (size_t n = 0; n < counters.size() && n < names.size(); ++n) {
    const auto& c = counters[n];
    for (const auto& [connection, count] : c.malformed_messages) {
      // A member's connection is named by its node index: show its name.
      std::string from = connection;
      if (!connection.empty() && connection.size() <= 9 &&
          connection.find_first_not_of("0123456789") == std::string::npos) {
        const size_t i = std::stoul(connection);
        if (i < names.size()) from = names[i];
      }
      malformed[names[n]][from] = count;
      malformed_total += count;
    }
    if (c.refused_connections > 0) refused[names[n]] = c.refused_connections;
    refused_total += c.refused_connections;
    if (c.dropped_connections > 0) dropped[names[n]] = c.dropped_connections;
  }
  return {{"malformed_messages", malformed},
          {"malformed_total", malformed_total},
          {"refused_connections", refused},
          {"refused_total", refused_total},
          {"dropped_connections", dropped}};
}

std::vector<VanCounters> counters_of_reports(const std::vector<nlohmann::json>& reports) {
  std::vector<VanCounters> out;
  for (const auto& r : reports) {
    const bool counted = r.is_object() && r.contains("bytes_sent");
    out.push_back(counted ? van_counters_from(FieldReader(r, kStatsEvent), reports.size())
                          : VanCounters{});
  }
  return out;
}

nlohmann::json peers_event(const nlohmann::json& peers, const std::vector<std::string>& names,
                           const std::string& strategy) {
  nlohmann::json nodes = nlohmann::json::object();
  for (const auto& name : names) {
    uint64_t malformed = 0;
    if (const auto it = peers["malformed_messages"].find(name);
        it != peers["malformed_messages"].end())
      for (const auto& [from, n] : it->items()) malformed += n.get<uint64_t>();
    nodes[name] = {{"malformed", malformed},
                   {"refused", peers["refused_connections"].value(name, uint64_t{0})}};
  }
  return {{"event", "peers"}, {"strategy", strategy}, {"nodes", nodes}};
}

}  // namespace testbed
