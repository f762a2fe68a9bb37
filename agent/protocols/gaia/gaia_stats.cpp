// What a Gaia data center counted over its run, for the controller's `stats` (gaia_plan.h
// sums them into the run's figures).
#include "agent/protocols/gaia/gaia_protocol.h"
#include "agent/runtime/van_counters.h"

namespace testbed {

nlohmann::json GaiaProtocol::stats() const {
  nlohmann::json s = report_with_counters(kStatsEvent, link_.van());
  const auto& f = filter_->counts();
  const auto& c = client_->counts();
  s["gaia"] = {{"updates", f.updates},
               {"significant", f.significant},
               {"soft_significant", f.soft},
               {"data_messages", c.data_messages},
               {"data_bytes", c.data_bytes},
               {"control_bytes", c.control_bytes},
               {"barriers_sent", c.barriers},
               {"barrier_keys", c.barrier_keys},
               {"merged_updates", c.merged},
               {"hub_bytes", c.hub_bytes},
               {"relayed_bytes", c.relayed_bytes},
               {"relays_staged", relays_staged_},
               {"barriers_received", barriers_received_},
               {"mirror_updates_received", updates_received_},
               {"mirror_keys_applied", applied_keys_},
               {"reads_blocked_by_barrier", blocked_reads_barrier_},
               {"blocked_s_barrier", blocked_s_barrier_},
               {"reads_blocked_by_mirror_clock", blocked_reads_clock_},
               {"blocked_s_mirror_clock", blocked_s_clock_},
               {"slowest_mirror_clock", mirrors_->slowest_mirror()},
               {"partition", go_on_when_cut_ ? "continue" : "block"},
               {"mirror_watch", watch_ ? watch_->to_json(Clock::now()) : nlohmann::json::object()},
               {"heartbeats", c.heartbeats},
               {"heartbeats_dropped", c.heartbeats_dropped},
               {"control_held", c.control_held},
               {"clocks", clock_},
               {"local_max_ahead", local_max_ahead_},
               {"per_clock", {{"filtered", filtered_by_clock_}, {"sent", sent_by_clock_}}},
               {"worker_updates", census_.to_json()}};
  return s;
}

}  // namespace testbed
