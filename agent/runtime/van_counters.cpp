#include "agent/runtime/van_counters.h"

namespace testbed {

VanCounters van_counters(const Van& van) {
  VanCounters c;
  // The van's maps are by peer index, never negative (its own members).
  for (const auto& [peer, bytes] : van.bytes_sent())
    c.bytes_sent[static_cast<size_t>(peer)] = bytes;
  for (const auto& [peer, bytes] : van.bytes_received())
    c.bytes_received[static_cast<size_t>(peer)] = bytes;
  c.malformed_messages = van.malformed();
  c.refused_connections = van.refused_connections();
  c.dropped_connections = van.dropped_connections();
  return c;
}

nlohmann::json report_with_counters(const char* event, const Van& van) {
  nlohmann::json j = {{"event", event}};
  write_van_counters(j, van_counters(van));
  return j;
}

}  // namespace testbed
