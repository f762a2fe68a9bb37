#include "agent/contracts/ps_node_report.h"

#include <limits>

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"

namespace testbed {
namespace {

ShardReport shard_of(const FieldReader& s, const std::string& role) {
  ShardReport out;
  out.role = role;
  out.shard = s.whole("shard");
  out.begin = s.whole("begin", std::numeric_limits<uint32_t>::max());
  out.end = s.whole("end", std::numeric_limits<uint32_t>::max());
  if (out.end < out.begin) throw s.error("end", "is before begin");
  out.updates = s.whole("updates");
  for (const auto& [staleness, n] : s.object("staleness").json().items()) {
    // A staleness as the agent writes it: digits, no sign, no leading zero.
    if (staleness.empty() || staleness.size() > 19 ||
        staleness.find_first_not_of("0123456789") != std::string::npos ||
        (staleness.size() > 1 && staleness[0] == '0'))
      throw s.error("staleness", "has the key \"" + staleness + "\", which is no staleness");
    out.staleness[std::stoull(staleness)] = s.whole_in("staleness", n);
  }
  const auto applied = s.required<nlohmann::json>("applied_ns");
  if (!applied.is_array()) throw s.error("applied_ns", "is not a list per worker");
  for (const auto& worker : applied) {
    if (!worker.is_array()) throw s.error("applied_ns", "is not a list per worker");
    out.applied_ns.emplace_back();
    for (const auto& t : worker) {
      if (!t.is_number_integer()) throw s.error("applied_ns", "holds a time that is no integer");
      out.applied_ns.back().push_back(t.get<int64_t>());
    }
  }
  if (s.json().contains("values")) {
    out.values = s.floats("values");
    if (out.values->size() != out.end - out.begin)
      throw s.error("values", "holds " + std::to_string(out.values->size()) + " values for " +
                                  std::to_string(out.end - out.begin) + " keys");
  }
  return out;
}

}  // namespace

void write_ps_node_report(nlohmann::json& report, const PsNodeReport& r) {
  report["relayed_bytes"] = r.relayed_bytes;
  if (r.pulled) report["pulled"] = {{"local", r.pulled->local}, {"remote", r.pulled->remote}};
  if (r.sent_dense)
    report["sent_dense"] = {{"pushes", r.sent_dense->pushes}, {"pulls", r.sent_dense->pulls}};
  if (!r.shard) return;
  const ShardReport& s = *r.shard;
  nlohmann::json staleness = nlohmann::json::object();
  for (const auto& [k, n] : s.staleness) staleness[std::to_string(k)] = n;
  nlohmann::json& out = report[s.role];
  out = {{"shard", s.shard},     {"begin", s.begin},       {"end", s.end},
         {"updates", s.updates}, {"staleness", staleness}, {"applied_ns", s.applied_ns}};
  if (s.values) out["values"] = *s.values;  // a NaN is written as null
}

bool is_ps_node_report(const nlohmann::json& report) {
  return is_final_report(report) && report.contains("relayed_bytes");
}

PsNodeReport ps_node_report_from(const nlohmann::json& report) {
  const FieldReader r = FieldReader::named(report, kStatsEvent);
  PsNodeReport out;
  out.relayed_bytes = r.whole("relayed_bytes");
  if (report.contains("pulled")) {
    const FieldReader p = r.object("pulled");
    out.pulled = PsNodeReport::Pulled{p.whole("local"), p.whole("remote")};
  }
  if (report.contains("sent_dense")) {
    const FieldReader d = r.object("sent_dense");
    out.sent_dense = PsNodeReport::Dense{d.whole("pushes"), d.whole("pulls")};
  }
  for (const std::string& role : shard_roles()) {
    if (!report.contains(role)) continue;
    if (out.shard) throw r.error(role, "is a second shard of one node");
    out.shard = shard_of(r.object(role.c_str()), role);
  }
  return out;
}

}  // namespace testbed
