#include "agent/contracts/ps_elastic_messages.h"

#include "agent/contracts/message_fields.h"

namespace testbed {

nlohmann::json to_json(const PsLeaveCommand&) {
  return {{"cmd", PsLeaveCommand::kCmd}};
}
nlohmann::json to_json(const PsJoinCommand&) {
  return {{"cmd", PsJoinCommand::kCmd}};
}
nlohmann::json to_json(const PsLeft& m) {
  return {{"event", PsLeft::kEvent}, {"clock", m.clock}};
}
nlohmann::json to_json(const PsJoined& m) {
  return {{"event", PsJoined::kEvent}, {"clock", m.clock}};
}

PsLeft ps_left_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, PsLeft::kEvent);
  r.refuse_unknown({"event", "clock"});
  return {r.whole("clock")};
}

PsJoined ps_joined_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, PsJoined::kEvent);
  r.refuse_unknown({"event", "clock"});
  return {r.whole("clock")};
}

}  // namespace testbed
