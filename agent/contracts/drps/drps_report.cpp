#include "agent/contracts/drps/drps_report.h"

#include "agent/contracts/message_fields.h"
#include "agent/contracts/node_replies.h"
#include "agent/contracts/ps_node_report.h"

namespace testbed {
namespace {

StoreSection store_of(const FieldReader& s) {
  return {s.whole("blocks"),     s.whole("block_reads"),     s.whole("block_writes"),
          s.whole("disk_reads"), s.whole("disk_read_bytes"), s.whole("disk_write_bytes")};
}

WspMasterSection master_of(const FieldReader& m, size_t nodes) {
  WspMasterSection out{m.whole("choices"),
                       m.whole("waited"),
                       m.whole("bound_forced"),
                       m.whole("held"),
                       m.measure("expected_wait_s"),
                       m.measure("realized_wait_s"),
                       {}};
  const auto waits = m.required<nlohmann::json>("waits");
  if (!waits.is_array()) throw m.error("waits", "is not a list");
  for (size_t i = 0; i < waits.size(); ++i) {
    const FieldReader r(waits[i], "stats.wsp_master.waits[" + std::to_string(i) + "]");
    out.waits.push_back({r.whole("worker", nodes - 1), r.whole("clock"), r.measure("estimated_s"),
                         r.measure("realized_s"), r.required<bool>("forced")});
  }
  return out;
}

}  // namespace

StoreSection& StoreSection::operator+=(const StoreSection& o) {
  blocks += o.blocks;
  block_reads += o.block_reads;
  block_writes += o.block_writes;
  disk_reads += o.disk_reads;
  disk_read_bytes += o.disk_read_bytes;
  disk_write_bytes += o.disk_write_bytes;
  return *this;
}

void to_json(nlohmann::json& j, const StoreSection& s) {
  j = {{"blocks", s.blocks},
       {"block_reads", s.block_reads},
       {"block_writes", s.block_writes},
       {"disk_reads", s.disk_reads},
       {"disk_read_bytes", s.disk_read_bytes},
       {"disk_write_bytes", s.disk_write_bytes}};
}

void to_json(nlohmann::json& j, const WspMasterSection& m) {
  nlohmann::json waits = nlohmann::json::array();
  for (const WspWaitRecord& w : m.waits)
    waits.push_back({{"worker", w.worker},
                     {"clock", w.clock},
                     {"estimated_s", w.estimated_s},
                     {"realized_s", w.realized_s},
                     {"forced", w.forced}});
  j = {{"choices", m.choices},
       {"waited", m.waited},
       {"bound_forced", m.bound_forced},
       {"held", m.held},
       {"expected_wait_s", m.expected_wait_s},
       {"realized_wait_s", m.realized_wait_s},
       {"waits", waits}};
}

void write_store_section(nlohmann::json& shard, const StoreSection& s) {
  shard["store"] = s;
}

void write_wsp_master_section(nlohmann::json& report, const WspMasterSection& m) {
  report["wsp_master"] = m;
}

DrpsReport drps_report_from(const nlohmann::json& report, size_t nodes) {
  const FieldReader r = FieldReader::named(report, kStatsEvent);
  DrpsReport out;
  if (report.contains("wsp_master")) out.wsp_master = master_of(r.object("wsp_master"), nodes);
  for (const std::string& role : shard_roles()) {
    if (!report.contains(role)) continue;
    const FieldReader s = r.object(role.c_str());
    if (!s.json().contains("store")) continue;
    if (out.store) throw r.error(role, "is a second shard of one node");
    out.role = role;
    out.store = store_of(s.object("store"));
  }
  return out;
}

}  // namespace testbed
