#include "agent/contracts/gaia/gaia_report.h"

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"

namespace testbed {
namespace {

// The section's whole numbers and seconds by name: written and read from one list.
constexpr std::pair<const char*, uint64_t GaiaSection::*> kCounts[] = {
    {"updates", &GaiaSection::updates},
    {"significant", &GaiaSection::significant},
    {"soft_significant", &GaiaSection::soft_significant},
    {"data_messages", &GaiaSection::data_messages},
    {"data_bytes", &GaiaSection::data_bytes},
    {"control_bytes", &GaiaSection::control_bytes},
    {"barriers_sent", &GaiaSection::barriers_sent},
    {"barrier_keys", &GaiaSection::barrier_keys},
    {"merged_updates", &GaiaSection::merged_updates},
    {"hub_bytes", &GaiaSection::hub_bytes},
    {"relayed_bytes", &GaiaSection::relayed_bytes},
    {"relays_staged", &GaiaSection::relays_staged},
    {"heartbeats", &GaiaSection::heartbeats},
    {"heartbeats_dropped", &GaiaSection::heartbeats_dropped},
    {"control_held", &GaiaSection::control_held},
    {"barriers_received", &GaiaSection::barriers_received},
    {"mirror_updates_received", &GaiaSection::mirror_updates_received},
    {"mirror_keys_applied", &GaiaSection::mirror_keys_applied},
    {"reads_blocked_by_barrier", &GaiaSection::reads_blocked_by_barrier},
    {"reads_blocked_by_mirror_clock", &GaiaSection::reads_blocked_by_mirror_clock},
    {"slowest_mirror_clock", &GaiaSection::slowest_mirror_clock},
    {"clocks", &GaiaSection::clocks},
    {"local_max_ahead", &GaiaSection::local_max_ahead},
};
constexpr std::pair<const char*, double GaiaSection::*> kSeconds[] = {
    {"blocked_s_barrier", &GaiaSection::blocked_s_barrier},
    {"blocked_s_mirror_clock", &GaiaSection::blocked_s_mirror_clock},
};

std::vector<uint64_t> wholes(const FieldReader& r, const char* field) {
  const nlohmann::json& list = r.required<nlohmann::json>(field);
  if (!list.is_array()) throw r.error(field, "is not a list");
  std::vector<uint64_t> out;
  for (const auto& v : list) out.push_back(r.whole_in(field, v));
  return out;
}

GaiaSection::WorkerUpdates census_of(const FieldReader& w) {
  GaiaSection::WorkerUpdates out;
  const nlohmann::json thresholds = w.required<nlohmann::json>("thresholds");
  if (!thresholds.is_array()) throw w.error("thresholds", "is not a list");
  for (const auto& t : thresholds) {
    if (!t.is_number() || t.get<double>() <= 0 || t.get<double>() > 1)
      throw w.error("thresholds", "holds a threshold outside (0, 1]");
    out.thresholds.push_back(t.get<double>());
  }
  out.updates = wholes(w, "updates");
  const nlohmann::json below = w.required<nlohmann::json>("below");
  if (!below.is_array() || below.size() != out.thresholds.size())
    throw w.error("below", "is not a list per threshold");
  for (const auto& series : below) {
    if (!series.is_array()) throw w.error("below", "holds a series that is not a list");
    auto& counts = out.below.emplace_back();
    for (const auto& v : series) counts.push_back(w.whole_in("below", v));
  }
  return out;
}

std::map<uint64_t, GaiaMirrorView> mirrors_of(const FieldReader& g, size_t nodes) {
  const FieldReader m = g.object("mirror_watch");
  std::map<uint64_t, GaiaMirrorView> out;
  for (const auto& [key, view] : m.json().items()) {
    const size_t node = g.node_key("mirror_watch", key, nodes);
    const FieldReader v = m.object(key.c_str());
    out[node] = {v.measure("silence_bound_s"), v.measure("longest_silence_s"),
                 v.whole("presumed_cut"), v.measure("presumed_cut_s"), v.required<bool>("cut_now")};
  }
  return out;
}

}  // namespace

void to_json(nlohmann::json& j, const GaiaSection& g) {
  j = nlohmann::json::object();
  for (const auto& [name, member] : kCounts) j[name] = g.*member;
  for (const auto& [name, member] : kSeconds) j[name] = g.*member;
  j["partition"] = g.partition;
  nlohmann::json& watch = j["mirror_watch"] = nlohmann::json::object();
  for (const auto& [node, m] : g.mirror_watch)
    watch[std::to_string(node)] = {{"silence_bound_s", m.silence_bound_s},
                                   {"longest_silence_s", m.longest_silence_s},
                                   {"presumed_cut", m.presumed_cut},
                                   {"presumed_cut_s", m.presumed_cut_s},
                                   {"cut_now", m.cut_now}};
  j["per_clock"] = {{"filtered", g.filtered_by_clock}, {"sent", g.sent_by_clock}};
  j["worker_updates"] = {{"thresholds", g.worker_updates.thresholds},
                         {"updates", g.worker_updates.updates},
                         {"below", g.worker_updates.below}};
}

void write_gaia_section(nlohmann::json& report, const GaiaSection& g) {
  report["gaia"] = g;
}

std::optional<GaiaSection> gaia_section_from(const nlohmann::json& report, size_t nodes) {
  if (!report.contains("gaia")) return std::nullopt;
  const FieldReader g = FieldReader::named(report, kStatsEvent).object("gaia");
  GaiaSection out;
  for (const auto& [name, member] : kCounts) out.*member = g.whole(name);
  for (const auto& [name, member] : kSeconds) out.*member = g.measure(name);
  out.partition = g.required<std::string>("partition");
  if (out.partition != "continue" && out.partition != "block")
    throw g.error("partition", "is neither continue nor block");
  out.mirror_watch = mirrors_of(g, nodes);
  const FieldReader per_clock = g.object("per_clock");
  out.filtered_by_clock = wholes(per_clock, "filtered");
  out.sent_by_clock = wholes(per_clock, "sent");
  out.worker_updates = census_of(g.object("worker_updates"));
  return out;
}

}  // namespace testbed
