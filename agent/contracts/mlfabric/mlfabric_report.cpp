#include "agent/contracts/mlfabric/mlfabric_report.h"

#include <limits>

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"
#include "agent/contracts/ps_node_report.h"

namespace testbed {
namespace {

// The keys of a worker's sections: all three or none (the policy writes them together).
constexpr const char* kWorkerKeys[] = {"scheduled", "aggregator", "distributor"};
// Keys inside a shard's section that are MLfabric's.
constexpr const char* kShardKeys[] = {"ordered", "models_sent", "apply_log", "checkpoint",
                                      "clock_applied_ns"};

MlfabricWorkerSections worker_of(const FieldReader& r) {
  MlfabricWorkerSections w;
  const FieldReader s = r.object("scheduled");
  w.scheduled = {s.whole("pushed"), s.whole("dropped"), s.whole("replicated")};
  const FieldReader a = r.object("aggregator");
  w.aggregator = {a.whole("sums"), a.whole("updates"), a.whole("waiting")};
  const FieldReader d = r.object("distributor");
  w.distributor = {d.whole("forwarded"), d.whole("kept")};
  return w;
}

MlfabricFailoverSection failover_of(const FieldReader& f) {
  MlfabricFailoverSection out;
  out.dead_server = f.whole("dead_server", std::numeric_limits<uint32_t>::max());
  out.first_seq = f.whole("first_seq");
  out.stale_messages_dropped = f.whole("stale_messages_dropped");
  out.updates_announced_again = f.whole("updates_announced_again");
  out.pulls_asked_again = f.whole("pulls_asked_again");
  if (f.json().contains("promoted")) {
    const FieldReader p = f.object("promoted");
    MlfabricFailoverSection::Promoted promoted{p.whole("places_lost"),
                                               p.whole("early_places_discarded"), std::nullopt};
    if (p.json().contains("checkpoint")) {
      const FieldReader c = p.object("checkpoint");
      promoted.checkpoint =
          CheckpointLoaded{c.required<bool>("found"), c.whole("applied"), c.measure("load_s")};
    }
    out.promoted = promoted;
  }
  return out;
}

std::vector<int64_t> times_of(const FieldReader& r, const char* field) {
  const auto list = r.required<nlohmann::json>(field);
  if (!list.is_array()) throw r.error(field, "is not a list");
  std::vector<int64_t> out;
  for (const auto& t : list) {
    if (!t.is_number_integer()) throw r.error(field, "holds a time that is no integer");
    out.push_back(t.get<int64_t>());
  }
  return out;
}

MlfabricShardSections shard_of(const FieldReader& s) {
  MlfabricShardSections out;
  if (s.json().contains("ordered")) {
    const FieldReader o = s.object("ordered");
    out.ordered = {o.whole("applied"), o.whole("arrived_early"), o.whole("waiting"),
                   o.whole("messages"), o.whole("bytes")};
  }
  if (s.json().contains("models_sent")) {
    const FieldReader m = s.object("models_sent");
    out.models_sent = {m.whole("to_workers"), m.whole("to_distributors")};
  }
  if (s.json().contains("apply_log")) {
    const auto log = s.required<nlohmann::json>("apply_log");
    if (!log.is_array()) throw s.error("apply_log", "is not a list");
    out.apply_log.emplace();
    for (const auto& record : log) {
      if (!record.is_array() || record.size() != 2 || !record[1].is_number_integer())
        throw s.error("apply_log", "holds a record that is not [places applied, time in ns]");
      out.apply_log->emplace_back(s.whole_in("apply_log", record[0]), record[1].get<int64_t>());
    }
  }
  if (s.json().contains("checkpoint")) {
    const FieldReader c = s.object("checkpoint");
    out.checkpoint = {c.whole("every"),     c.whole("writes"),  c.whole("bytes"),
                      c.measure("seconds"), c.measure("max_s"), c.whole("last_applied")};
  }
  if (s.json().contains("clock_applied_ns")) out.clock_applied_ns = times_of(s, "clock_applied_ns");
  return out;
}

}  // namespace

void to_json(nlohmann::json& j, const CheckpointLoaded& c) {
  j = {{"found", c.found}, {"applied", c.applied}, {"load_s", c.load_s}};
}

void to_json(nlohmann::json& j, const MlfabricShardSections::Checkpoint& c) {
  j = {{"every", c.every},     {"writes", c.writes}, {"bytes", c.bytes},
       {"seconds", c.seconds}, {"max_s", c.max_s},   {"last_applied", c.last_applied}};
}

void write_mlfabric_node_sections(nlohmann::json& report,
                                  const std::optional<MlfabricWorkerSections>& worker,
                                  const std::optional<MlfabricFailoverSection>& failover) {
  if (worker) {
    const auto& w = *worker;
    report["scheduled"] = {{"pushed", w.scheduled.pushed},
                           {"dropped", w.scheduled.dropped},
                           {"replicated", w.scheduled.replicated}};
    report["aggregator"] = {{"sums", w.aggregator.sums},
                            {"updates", w.aggregator.updates},
                            {"waiting", w.aggregator.waiting}};
    report["distributor"] = {{"forwarded", w.distributor.forwarded}, {"kept", w.distributor.kept}};
  }
  if (failover) {
    const auto& f = *failover;
    nlohmann::json& out = report["failover"];
    out = {{"dead_server", f.dead_server},
           {"first_seq", f.first_seq},
           {"stale_messages_dropped", f.stale_messages_dropped},
           {"updates_announced_again", f.updates_announced_again},
           {"pulls_asked_again", f.pulls_asked_again}};
    if (f.promoted) {
      out["promoted"] = {{"places_lost", f.promoted->places_lost},
                         {"early_places_discarded", f.promoted->early_places_discarded}};
      if (f.promoted->checkpoint) out["promoted"]["checkpoint"] = *f.promoted->checkpoint;
    }
  }
}

void write_mlfabric_shard_sections(nlohmann::json& shard, const MlfabricShardSections& s) {
  if (s.ordered)
    shard["ordered"] = {{"applied", s.ordered->applied},
                        {"arrived_early", s.ordered->arrived_early},
                        {"waiting", s.ordered->waiting},
                        {"messages", s.ordered->messages},
                        {"bytes", s.ordered->bytes}};
  if (s.models_sent)
    shard["models_sent"] = {{"to_workers", s.models_sent->to_workers},
                            {"to_distributors", s.models_sent->to_distributors}};
  if (s.apply_log) write_apply_log(shard, *s.apply_log);
  if (s.checkpoint) shard["checkpoint"] = *s.checkpoint;
  if (!s.clock_applied_ns.empty()) shard["clock_applied_ns"] = s.clock_applied_ns;
}

void write_apply_log(nlohmann::json& shard, const ApplyLog& log) {
  shard["apply_log"] = log;  // [applied, ns] pairs
}

MlfabricReport mlfabric_report_from(const nlohmann::json& report) {
  const FieldReader r = FieldReader::named(report, kStatsEvent);
  MlfabricReport out;
  for (const char* key : kWorkerKeys)
    if (report.contains(key)) {
      out.worker = worker_of(r);
      break;
    }
  if (report.contains("failover")) out.failover = failover_of(r.object("failover"));
  for (const std::string& role : shard_roles()) {
    if (!report.contains(role)) continue;
    const FieldReader s = r.object(role.c_str());
    bool has_sections = false;
    for (const char* key : kShardKeys) has_sections = has_sections || s.json().contains(key);
    if (!has_sections) continue;
    if (out.shard) throw r.error(role, "is a second shard of one node");
    out.role = role;
    out.shard = shard_of(s);
  }
  return out;
}

}  // namespace testbed
