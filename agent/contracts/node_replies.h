// What every agent answers the controller, whatever its system: that it started (hello),
// that its setup is done (ready), that a command failed (error), and the counters of its
// van that every system's final report carries (bytes by peer, what it refused). One
// struct each, written by the agent's runtime and protocols and read by the controller's
// check of replies (controller/training/agent_reply.h) and its sessions.
//
// A field missing, of the wrong type or out of range is refused with its name (a
// ContractError): the controller drops such a reply and counts it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "agent/contracts/message_fields.h"

namespace testbed {

// The agent's first word: its control socket is up and it waits for setup.
struct NodeHello {
  static constexpr const char* kEvent = "hello";
};

// Setup done; a parameter-server node or a data center says how many parameters it holds.
struct NodeReady {
  static constexpr const char* kEvent = "ready";
  std::optional<uint64_t> parameters;
};

// A command failed: the run ends, naming the node and this.
struct NodeError {
  static constexpr const char* kEvent = "error";
  std::string what;
};

// The van's counters since the agent started, by peer node index: bytes sent and
// received; messages dropped as malformed by the connection they came on (a member's node
// index, or the id ZeroMQ gave a stranger); connections refused at the handshake and cut
// after it.
struct VanCounters {
  std::map<size_t, uint64_t> bytes_sent;
  std::map<size_t, uint64_t> bytes_received;
  std::map<std::string, uint64_t> malformed_messages;
  uint64_t refused_connections = 0;
  uint64_t dropped_connections = 0;
};

// The name of a system's final report: the van's counters (below) and the system's own
// sections beside them, each read by its system's session.
constexpr const char* kStatsEvent = "stats";

// A system's check of the replies of its own (its events, its sections of a final report):
// throws ContractError naming the field when one is there and malformed, and leaves every
// other reply alone. Registered with the system's strategies (StrategyTraits::check_reply),
// so the controller's reader of replies names no system.
using ReplyCheck = void (*)(const nlohmann::json& reply, size_t nodes, uint64_t max_clock);

// Whether `j` is a final report. A node that died stands in as {"event": "stats", "died":
// true}: a final report whose sections are all absent.
bool is_final_report(const nlohmann::json& j);

nlohmann::json to_json(const NodeHello& e);
nlohmann::json to_json(const NodeReady& e);
nlohmann::json to_json(const NodeError& e);

// Each throws ContractError naming the field; an unknown field is refused too.
NodeHello node_hello_from_json(const nlohmann::json& j);
NodeReady node_ready_from_json(const nlohmann::json& j);
NodeError node_error_from_json(const nlohmann::json& j);

// The counters are a part of a larger report (a system's stats, NetStorm's iteration
// done): written into `report` beside its other fields, and read from it, peers checked
// against the lab's `nodes`. The report's other fields are its own reader's.
void write_van_counters(nlohmann::json& report, const VanCounters& c);
VanCounters van_counters_from(const FieldReader& report, size_t nodes);

// The check of a reply whose "event" is hello, ready or error: throws ContractError when
// it is malformed; any other event is left to its own reader.
void check_node_reply(const nlohmann::json& j);

}  // namespace testbed
