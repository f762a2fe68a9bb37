#include "agent/contracts/mlfabric/mlfabric_events.h"

#include <set>

#include "agent/contracts/message_fields.h"

namespace testbed {
namespace {

// 1 TiB: no push is that large; a model that size is past the memory of any machine a lab
// runs on.
constexpr uint64_t kLargestPushBytes = uint64_t{1} << 40;

}  // namespace

nlohmann::json to_json(const UpdateAnnounced& e) {
  return {{"event", UpdateAnnounced::kEvent},
          {"clock", e.clock},
          {"version", e.version},
          {"bytes", e.bytes},
          {"norm", e.norm}};
}

nlohmann::json to_json(const PullBatch& e) {
  return {{"event", PullBatch::kEvent},
          {"batch", e.batch},
          {"workers", e.workers},
          {"clocks", e.clocks}};
}

nlohmann::json to_json(const UpdateArrived& e) {
  return {{"event", UpdateArrived::kEvent}, {"seq", e.seq}};
}

nlohmann::json to_json(const ReplicaApplied& e) {
  return {{"event", ReplicaApplied::kEvent}, {"applied", e.applied}};
}

UpdateAnnounced update_announced_from_json(const nlohmann::json& j, uint64_t max_clock) {
  const FieldReader r = FieldReader::named(j, UpdateAnnounced::kEvent);
  r.refuse_unknown({"event", "clock", "version", "bytes", "norm"});
  UpdateAnnounced e;
  e.clock = r.whole("clock", max_clock);
  e.version = r.whole("version");
  e.bytes = r.whole("bytes", kLargestPushBytes);
  e.norm = r.measure("norm");
  return e;
}

PullBatch pull_batch_from_json(const nlohmann::json& j, size_t nodes, uint64_t max_clock) {
  const FieldReader r = FieldReader::named(j, PullBatch::kEvent);
  r.refuse_unknown({"event", "batch", "workers", "clocks"});
  PullBatch e;
  e.batch = r.whole("batch");
  const auto list = [&](const char* field) {
    if (!r.json().contains(field) || !r.json().at(field).is_array())
      throw r.error(field, "is missing or not a list");
    return r.json().at(field);
  };
  if (nodes == 0) throw r.error("workers", "names nodes of an empty lab");
  std::set<size_t> seen;
  for (const auto& w : list("workers")) {
    const size_t node = r.whole_in("workers", w, nodes - 1);
    if (!seen.insert(node).second)
      throw r.error("workers", "names node " + std::to_string(node) + " twice");
    e.workers.push_back(node);
  }
  for (const auto& c : list("clocks")) e.clocks.push_back(r.whole_in("clocks", c, max_clock));
  if (e.workers.empty() || e.workers.size() != e.clocks.size())
    throw r.error("clocks", "holds " + std::to_string(e.clocks.size()) + " clocks for " +
                                std::to_string(e.workers.size()) + " workers");
  return e;
}

UpdateArrived update_arrived_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, UpdateArrived::kEvent);
  r.refuse_unknown({"event", "seq"});
  return {r.whole("seq")};
}

ReplicaApplied replica_applied_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, ReplicaApplied::kEvent);
  r.refuse_unknown({"event", "applied"});
  return {r.whole("applied")};
}

void check_mlfabric_event(const nlohmann::json& j, size_t nodes, uint64_t max_clock) {
  const auto event = j.find("event");
  if (event == j.end() || !event->is_string()) return;
  if (*event == UpdateAnnounced::kEvent) update_announced_from_json(j, max_clock);
  if (*event == PullBatch::kEvent) pull_batch_from_json(j, nodes, max_clock);
  if (*event == UpdateArrived::kEvent) update_arrived_from_json(j);
  if (*event == ReplicaApplied::kEvent) replica_applied_from_json(j);
}

}  // namespace testbed
