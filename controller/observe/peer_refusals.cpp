#include "controller/observe/peer_refusals.h"

namespace testbed {

nlohmann::json peer_refusals(const std::vector<nlohmann::json>& reports,
                             const std::vector<std::string>& names) {
  nlohmann::json malformed = nlohmann::json::object(), refused = nlohmann::json::object(),
                 dropped = nlohmann::json::object();
  uint64_t malformed_total = 0, refused_total = 0;
  for (size_t n = 0; n < reports.size() && n < names.size(); ++n) {
    const auto& r = reports[n];
    if (const auto it = r.find("malformed_messages"); it != r.end() && it->is_object()) {
      for (const auto& [connection, count] : it->items()) {
        if (!count.is_number_integer() || count.get<int64_t>() < 0) continue;
        // A member's connection is named by its node index: show its name.
        std::string from = connection;
        if (!connection.empty() &&
            connection.find_first_not_of("0123456789") == std::string::npos) {
          const size_t i = std::stoul(connection);
          if (i < names.size()) from = names[i];
        }
        malformed[names[n]][from] = count;
        malformed_total += count.get<uint64_t>();
      }
    }
    const uint64_t refusals = r.value("refused_connections", uint64_t{0});
    if (refusals > 0) refused[names[n]] = refusals;
    refused_total += refusals;
    if (const uint64_t cut = r.value("dropped_connections", uint64_t{0}); cut > 0)
      dropped[names[n]] = cut;
  }
  return {{"malformed_messages", malformed},
          {"malformed_total", malformed_total},
          {"refused_connections", refused},
          {"refused_total", refused_total},
          {"dropped_connections", dropped}};
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
