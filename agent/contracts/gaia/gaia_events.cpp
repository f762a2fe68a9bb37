#include "agent/contracts/gaia/gaia_events.h"

#include "agent/contracts/message_fields.h"

namespace testbed {

nlohmann::json to_json(const MirrorCut& e) {
  return {{"event", MirrorCut::kEvent}, {"node", e.node}, {"cut", e.cut}};
}

MirrorCut mirror_cut_from_json(const nlohmann::json& j, size_t nodes) {
  const FieldReader r = FieldReader::named(j, MirrorCut::kEvent);
  r.refuse_unknown({"event", "node", "cut"});
  if (nodes == 0) throw r.error("node", "names a node of an empty lab");
  return {r.whole("node", nodes - 1), r.required<bool>("cut")};
}

void check_gaia_event(const nlohmann::json& j, size_t nodes) {
  const auto event = j.find("event");
  if (event != j.end() && *event == MirrorCut::kEvent) mirror_cut_from_json(j, nodes);
}

}  // namespace testbed
