#include "agent/contracts/node_replies.h"

namespace testbed {
namespace {

std::map<size_t, uint64_t> by_peer(const FieldReader& r, const char* field, size_t nodes) {
  const FieldReader m = r.object(field);
  std::map<size_t, uint64_t> out;
  for (const auto& [key, value] : m.json().items())
    out[r.node_key(field, key, nodes)] = r.whole_in(field, value);
  return out;
}

nlohmann::json to_json(const std::map<size_t, uint64_t>& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [peer, bytes] : m) j[std::to_string(peer)] = bytes;
  return j;
}

}  // namespace

nlohmann::json to_json(const NodeHello&) {
  return {{"event", NodeHello::kEvent}};
}

nlohmann::json to_json(const NodeReady& e) {
  nlohmann::json j = {{"event", NodeReady::kEvent}};
  if (e.parameters) j["parameters"] = *e.parameters;
  return j;
}

nlohmann::json to_json(const NodeError& e) {
  return {{"event", NodeError::kEvent}, {"what", e.what}};
}

NodeHello node_hello_from_json(const nlohmann::json& j) {
  FieldReader::named(j, NodeHello::kEvent).refuse_unknown({"event"});
  return {};
}

NodeReady node_ready_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, NodeReady::kEvent);
  r.refuse_unknown({"event", "parameters"});
  NodeReady e;
  if (j.contains("parameters")) e.parameters = r.whole("parameters");
  return e;
}

NodeError node_error_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, NodeError::kEvent);
  r.refuse_unknown({"event", "what"});
  return {r.required<std::string>("what")};
}

void write_van_counters(nlohmann::json& report, const VanCounters& c) {
  nlohmann::json malformed = nlohmann::json::object();
  for (const auto& [connection, n] : c.malformed_messages) malformed[connection] = n;
  report["bytes_sent"] = to_json(c.bytes_sent);
  report["bytes_received"] = to_json(c.bytes_received);
  report["malformed_messages"] = malformed;
  report["refused_connections"] = c.refused_connections;
  report["dropped_connections"] = c.dropped_connections;
}

VanCounters van_counters_from(const FieldReader& report, size_t nodes) {
  VanCounters c;
  c.bytes_sent = by_peer(report, "bytes_sent", nodes);
  c.bytes_received = by_peer(report, "bytes_received", nodes);
  // By connection: a stranger's id is any text ZeroMQ gave it, so the keys are free.
  for (const auto& [connection, n] : report.object("malformed_messages").json().items())
    c.malformed_messages[connection] = report.whole_in("malformed_messages", n);
  c.refused_connections = report.whole("refused_connections");
  c.dropped_connections = report.whole("dropped_connections");
  return c;
}

void check_node_reply(const nlohmann::json& j) {
  const auto event = j.find("event");
  if (event == j.end() || !event->is_string()) return;
  if (*event == NodeHello::kEvent) node_hello_from_json(j);
  if (*event == NodeReady::kEvent) node_ready_from_json(j);
  if (*event == NodeError::kEvent) node_error_from_json(j);
}

bool is_final_report(const nlohmann::json& j) {
  return j.is_object() && j.value("event", "") == kStatsEvent;
}

}  // namespace testbed
