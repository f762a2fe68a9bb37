// What the controller computes for a Gaia run (agent/protocols/gaia/), pure:
//  - each data center's mirror links, with the window of data a link may have in flight
//    before the mirror client holds updates back (and sends a selective barrier);
//  - the convergence target of the paper's Sec. 5.3, from the LAN run's objective curve;
//  - the run's Gaia figures, summed over the data centers' statistics.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "agent/contracts/gaia/gaia_report.h"
#include "agent/contracts/gaia/gaia_setup.h"
#include "controller/training/gaia/gaia_groups.h"

namespace testbed {

struct PathDirection {
  int from = 0, to = 0;
  double bits_per_s = 0;  // 0: unshaped
  double delay_s = 0;
};

struct MirrorWindow {
  int node = 0;
  size_t window_bytes = 0;
  double path_bits_per_s = 0;  // the path's slowest direction toward the mirror
  double rtt_s = 0;
};

// For data center `self`: every other data center, reached over the fewest hops of the
// lab's directions. The window is twice the path's bandwidth-delay product (one product
// keeps the link busy; the second absorbs a clock's burst), at least kMinWindowBytes.
// A larger floor would defeat the barrier on a slow path: a barrier waits behind the data
// in flight, and 64 KiB take 5 s at 100 kbit/s.
std::vector<MirrorWindow> mirror_windows(int self, const std::vector<int>& data_centers,
                                         const std::vector<PathDirection>& directions);
// Three segments: for a path with no configured delay, whose acks return at once. A single
// message larger than the window still goes when nothing is in flight.
constexpr size_t kMinWindowBytes = 4 * 1024;

// Where the paper is silent or we depart from it: printed by `testbed plan` for a profile
// whose workload is gaia, and carried by every Gaia run's results.
nlohmann::json gaia_choices();

// The knobs of ASP between data centers (Sec. 3), as options or workload keys give them.
struct GaiaKnobs {
  double threshold = 0.01;  // v, as a fraction
  int ds = 2;               // mirror clock's data-center staleness; negative: off
  bool soft = false;        // the soft threshold (Sec. 4.3)
  // Inside a data center: -1 for BSP (the paper's main results), else SSP's bound in
  // clocks (Appendix B).
  int local_staleness = -1;
  // What t counts in v/sqrt(t) and in the job's step schedule: passes (true) or clocks.
  bool t_in_passes = true;
  std::string groups = "auto";  // --gaia-groups: off, auto, or A,B/C,D
  // --gaia-partition: a mirror presumed cut off is left out (continue) or waited for (block).
  std::string partition = "continue";
};

// How long a mirror may be silent before a data center presumes it cut off
// (agent/protocols/gaia/mirror_watch.h). A heartbeat leaves every half second, and on a
// working path it may wait behind a whole dense model message and a window of data in
// flight: the bound is kSilenceMargin times that wait plus a round trip, and never under
// kMinSilenceS. `model_bytes`: a dense message's payload. An unshaped path: the floor.
double silence_bound_s(const MirrorWindow& path, size_t model_bytes);
// Four heartbeats: one late heartbeat, or two, never presume a mirror cut.
constexpr double kMinSilenceS = 2.0;
// Four times the worst wait computed: a path's rate dips (a schedule's change, cross
// traffic), TCP's slow start after idle; measured (docs/faults.md), the longest silence on
// working paths stays under half the bound.
constexpr double kSilenceMargin = 4.0;

// The rate of every path between two data centers (mirror_windows' slowest direction).
PathRate data_center_rates(const std::vector<int>& data_centers,
                           const std::vector<PathDirection>& directions);

// The `gaia` part of the agents' setup: the knobs, and each data center's overlay links
// (overlay_links: group members, and other groups' hubs) with their windows
// (mirror_windows) over the lab's directions as they are now.
// `parameters`: the model's size (the silence bounds, silence_bound_s).
GaiaSetup gaia_agent_setup(const GaiaKnobs& knobs, const std::vector<int>& data_centers,
                           const std::vector<PathDirection>& directions, const GaiaOverlay& overlay,
                           size_t parameters);
// The overlay by names: {groups: [[names]], hubs: [{group, towards, hub, peer}]}.
nlohmann::json overlay_to_json(const GaiaOverlay& overlay, const std::vector<std::string>& names);
// "gaia(v=1%, DS=2)" and the like: the consistency model a run used.
std::string gaia_label(const GaiaKnobs& knobs);

// Sums the `gaia` sections of the data centers' final reports (none where a node is no
// data center) into the run's figures: the filter's counts and the share of updates it
// held back (over the run and its last quarter of clocks), the paper's Fig. 5 shares of
// the workers' own updates below each threshold (worker_updates), what crossed to the
// mirrors, and how often and how long reads were held back, by rule.
nlohmann::json gaia_figures(const std::vector<std::optional<GaiaSection>>& sections,
                            const std::vector<std::string>& names);
// A run's `gaia` object: its figures, the knobs and the choices made.
nlohmann::json gaia_summary(const std::vector<std::optional<GaiaSection>>& sections,
                            const std::vector<std::string>& names, const GaiaKnobs& knobs);

}  // namespace testbed
