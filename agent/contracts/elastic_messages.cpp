#include "agent/contracts/elastic_messages.h"

#include <set>

#include "agent/contracts/message_fields.h"

namespace testbed {

nlohmann::json to_json(const RoundReady& m) {
  return {{"event", RoundReady::kEvent}, {"round", m.round}, {"last", m.last}};
}
nlohmann::json to_json(const RoundReduced& m) {
  return {{"event", RoundReduced::kEvent}, {"seq", m.seq}};
}
nlohmann::json to_json(const ReduceCommand& m) {
  return {{"cmd", ReduceCommand::kCmd}, {"seq", m.seq}, {"members", m.members}};
}
nlohmann::json to_json(const CommitCommand& m) {
  return {{"cmd", CommitCommand::kCmd}, {"seq", m.seq}, {"members", m.members}};
}
nlohmann::json to_json(const LeaveCommand&) {
  return {{"cmd", LeaveCommand::kCmd}};
}
nlohmann::json to_json(const SendModelCommand& m) {
  return {{"cmd", SendModelCommand::kCmd}, {"to", m.to}};
}
nlohmann::json to_json(const CaughtUp& m) {
  return {{"event", CaughtUp::kEvent}, {"clock", m.clock}, {"bytes", m.bytes}};
}

SendModelCommand send_model_command_from_json(const nlohmann::json& j, size_t nodes) {
  const FieldReader r = FieldReader::named(j, SendModelCommand::kCmd, "cmd");
  r.refuse_unknown({"cmd", "to"});
  return {static_cast<int>(r.whole("to", nodes - 1))};
}

CaughtUp caught_up_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, CaughtUp::kEvent);
  r.refuse_unknown({"event", "clock", "bytes"});
  return {r.whole("clock"), r.whole("bytes")};
}

RoundReady round_ready_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, RoundReady::kEvent);
  r.refuse_unknown({"event", "round", "last"});
  return {r.whole("round"), r.optional<bool>("last", false)};
}

RoundReduced round_reduced_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, RoundReduced::kEvent);
  r.refuse_unknown({"event", "seq"});
  return {r.whole("seq")};
}

ReduceCommand reduce_command_from_json(const nlohmann::json& j, size_t nodes) {
  const FieldReader r = FieldReader::named(j, ReduceCommand::kCmd, "cmd");
  r.refuse_unknown({"cmd", "seq", "members"});
  ReduceCommand c{r.whole("seq"), {}};
  const auto members = r.required<nlohmann::json>("members");
  if (!members.is_array() || members.empty()) throw r.error("members", "is not a list of nodes");
  std::set<uint64_t> seen;
  for (const auto& m : members) {
    const uint64_t node = r.whole_in("members", m, nodes - 1);
    if (!seen.insert(node).second) throw r.error("members", "names a node twice");
    c.members.push_back(static_cast<int>(node));
  }
  return c;
}

CommitCommand commit_command_from_json(const nlohmann::json& j, size_t nodes) {
  const FieldReader r = FieldReader::named(j, CommitCommand::kCmd, "cmd");
  r.refuse_unknown({"cmd", "seq", "members"});
  CommitCommand c{r.whole("seq"), 0};
  c.members = static_cast<int>(r.in_range<uint64_t>("members", r.whole("members"), 1, nodes));
  return c;
}

}  // namespace testbed
