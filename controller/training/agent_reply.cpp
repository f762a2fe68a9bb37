#include "controller/training/agent_reply.h"

#include "agent/contracts/message_fields.h"
#include "agent/contracts/model_report.h"
#include "agent/contracts/node_replies.h"
#include "agent/contracts/ps_node_report.h"
#include "agent/contracts/tree_messages.h"
#include "agent/contracts/worker_events.h"
#include "controller/training/strategy_registry.h"

namespace testbed {

std::optional<size_t> canonical_node_index(const std::string& id, size_t nodes) {
  // Digits only, no sign or space, short enough not to overflow (nine digits: far more nodes
  // than a lab holds), and no leading zero: one node, one spelling.
  if (id.empty() || id.size() > 9 || id.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const size_t node = std::stoul(id);
  if (node >= nodes || std::to_string(node) != id) return std::nullopt;
  return node;
}

std::optional<std::pair<size_t, nlohmann::json>> decode_agent_reply(const std::string& id,
                                                                    const std::string& payload,
                                                                    size_t nodes,
                                                                    uint64_t max_clock) {
  const auto index = canonical_node_index(id, nodes);
  if (!index) return std::nullopt;
  const size_t node = *index;
  auto j = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;  // a parse error is "discarded", not an object
  const auto event = j.find("event");
  if (event == j.end() || !event->is_string()) return std::nullopt;
  for (const char* f : {"clock", "iteration"}) {
    const auto it = j.find(f);
    if (it != j.end() && (!it->is_number_unsigned() || it->get<uint64_t>() > max_clock))
      return std::nullopt;
  }
  // null too: a NaN (a diverged model's loss) is written as null by the agent's JSON.
  for (const char* f : {"seconds", "loss", "bytes"}) {
    const auto it = j.find(f);
    if (it != j.end() && !it->is_number() && !it->is_null()) return std::nullopt;
  }
  // The replies every system shares (hello, ready, error, the van's counters in a final
  // report), the tree's and the workers' progress and a final report's shared sections (the
  // parameter-server core's, a ring's model) are read whole by their contracts; each
  // system's own events and sections by its registered check, whichever system runs (a
  // reply of another's is malformed all the same).
  try {
    check_node_reply(j);
    check_tree_reply(j, nodes, max_clock);
    check_worker_event(j, max_clock);
    if (*event == kStatsEvent) {
      van_counters_from(FieldReader(j, kStatsEvent), nodes);
      if (is_ps_node_report(j)) ps_node_report_from(j);
      ring_model_from(j);
    }
    for (const ReplyCheck check : reply_checks()) check(j, nodes, max_clock);
  } catch (const ContractError&) {
    return std::nullopt;
  }
  return std::pair{node, std::move(j)};
}

}  // namespace testbed
