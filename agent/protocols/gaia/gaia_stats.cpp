// What a Gaia data center counted over its run, for the controller's `stats` (gaia_plan.h
// sums them into the run's figures); the section's shape is the contract's
// (agent/contracts/gaia/gaia_report.h).
#include "agent/contracts/gaia/gaia_report.h"
#include "agent/protocols/gaia/gaia_protocol.h"
#include "agent/runtime/van_counters.h"

namespace testbed {

nlohmann::json GaiaProtocol::stats() const {
  nlohmann::json s = report_with_counters(kStatsEvent, link_.van());
  const auto& f = filter_->counts();
  const auto& c = client_->counts();
  GaiaSection g;
  g.updates = f.updates;
  g.significant = f.significant;
  g.soft_significant = f.soft;
  g.data_messages = c.data_messages;
  g.data_bytes = c.data_bytes;
  g.control_bytes = c.control_bytes;
  g.barriers_sent = c.barriers;
  g.barrier_keys = c.barrier_keys;
  g.merged_updates = c.merged;
  g.hub_bytes = c.hub_bytes;
  g.relayed_bytes = c.relayed_bytes;
  g.relays_staged = relays_staged_;
  g.heartbeats = c.heartbeats;
  g.heartbeats_dropped = c.heartbeats_dropped;
  g.control_held = c.control_held;
  g.barriers_received = barriers_received_;
  g.mirror_updates_received = updates_received_;
  g.mirror_keys_applied = applied_keys_;
  g.reads_blocked_by_barrier = blocked_reads_barrier_;
  g.blocked_s_barrier = blocked_s_barrier_;
  g.reads_blocked_by_mirror_clock = blocked_reads_clock_;
  g.blocked_s_mirror_clock = blocked_s_clock_;
  g.slowest_mirror_clock = mirrors_->slowest_mirror();
  g.clocks = clock_;
  g.local_max_ahead = local_max_ahead_;
  g.partition = go_on_when_cut_ ? "continue" : "block";
  if (watch_) g.mirror_watch = watch_->views(Clock::now());
  g.filtered_by_clock = filtered_by_clock_;
  g.sent_by_clock = sent_by_clock_;
  g.worker_updates = census_.section();
  write_gaia_section(s, g);
  return s;
}

}  // namespace testbed
