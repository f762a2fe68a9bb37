// Gaia's own section of a data center's final "stats" ("gaia", beside the parameter-server
// core's fields: ps_node_report.h): what its significance filter held back, what its
// mirror client sent over the WAN and its mirror server applied, how long reads waited on a
// barrier or the mirror clock, its view of each mirror's silences, and per clock what it
// filtered and sent and how large its workers' own updates were (the paper's Fig. 5). The
// agent's GaiaProtocol (agent/protocols/gaia/gaia_stats.cpp) writes it; the controller's
// gaia_figures (controller/training/gaia/gaia_plan.h) and its check of agents' replies
// read it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

// One mirror, as a data center saw it (agent/protocols/gaia/mirror_watch.h).
struct GaiaMirrorView {
  double silence_bound_s = 0, longest_silence_s = 0;
  uint64_t presumed_cut = 0;  // times it was presumed cut off
  double presumed_cut_s = 0;  // for how long in all
  bool cut_now = false;
};

struct GaiaSection {
  // The significance filter's (Sec. 3.2): local updates, and those it sent.
  uint64_t updates = 0, significant = 0, soft_significant = 0;
  // The mirror client's: what crossed the WAN (Sec. 3.3), hubs' sums (Sec. 4.5) included.
  uint64_t data_messages = 0, data_bytes = 0, control_bytes = 0;
  uint64_t barriers_sent = 0, barrier_keys = 0, merged_updates = 0;
  uint64_t hub_bytes = 0, relayed_bytes = 0, relays_staged = 0;
  uint64_t heartbeats = 0, heartbeats_dropped = 0, control_held = 0;
  // The mirror server's: what arrived from the other data centers and was applied.
  uint64_t barriers_received = 0, mirror_updates_received = 0, mirror_keys_applied = 0;
  // Reads held back, by rule, and for how long.
  uint64_t reads_blocked_by_barrier = 0, reads_blocked_by_mirror_clock = 0;
  double blocked_s_barrier = 0, blocked_s_mirror_clock = 0;
  // Clocks: the slowest mirror's, its own, and the most a local worker read ahead.
  uint64_t slowest_mirror_clock = 0, clocks = 0, local_max_ahead = 0;
  std::string partition = "continue";               // --gaia-partition: "continue" or "block"
  std::map<uint64_t, GaiaMirrorView> mirror_watch;  // by the mirror's node
  // Per clock: the updates the filter accumulated and those it sent.
  std::vector<uint64_t> filtered_by_clock, sent_by_clock;
  // The census of its workers' own updates (update_census.h): per clock, and per threshold
  // per clock those below it.
  struct WorkerUpdates {
    std::vector<double> thresholds;
    std::vector<uint64_t> updates;
    std::vector<std::vector<uint64_t>> below;
  } worker_updates;
};

void to_json(nlohmann::json& j, const GaiaSection& g);
void write_gaia_section(nlohmann::json& report, const GaiaSection& g);
// The section of a final "stats" (none in another system's); throws ContractError naming
// a field that is missing, of the wrong type or out of range. A mirror must be one of the
// lab's `nodes`.
std::optional<GaiaSection> gaia_section_from(const nlohmann::json& report, size_t nodes);

}  // namespace testbed
