// What `testbed status` shows of one lab, as one typed struct: its record (plan, phase,
// where to watch it), each direction's current values (what the timeline or `link set`
// changed since `up`) and what the kernel reports of it with counters, each node's presence,
// state and compute, the timeline's lag, the routes, the delay lines' figures and the
// emulation health of its newest run. The verb prints it as tables, or as JSON
// (write_status_json: the plan's own JSON of each node and link, the readings beside it).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "controller/lab/lab_state.h"
#include "controller/observe/node_compute_status.h"
#include "netns/kernel.h"
#include "netns/lateness_histogram.h"

namespace testbed {

// A direction's values now: the plan's, over what the timeline or `link set` changed.
struct DirectionNow {
  uint64_t rate_bits_per_s = 0;
  int64_t delay_us = 0;
  double loss = 0;    // a fraction
  bool down = false;  // cut by a fault (faults.md)
};

// What the kernel reports of a shaped direction (root only).
struct DirectionKernel {
  uint64_t rate_bits_per_s = 0, sent_bytes = 0, sent_packets = 0, dropped_packets = 0;
  // The cross traffic it delivered where it arrives (kernel.h, TrafficCounters); read when
  // the lab has cross traffic, unset when the receiver has no counter for it.
  bool counts_background = false;
  std::optional<uint64_t> background_bytes;
};

struct DirectionStatus {
  DirectionNow now;
  // The kernel was asked (root) and found the direction's shaping: its figures; asked and
  // found none: nullopt with `kernel_asked`.
  bool kernel_asked = false;
  std::optional<DirectionKernel> kernel;
};

struct NodeStatus {
  std::optional<bool> present;  // its namespace exists; unknown without root
  std::string state;            // after its last crash, pause or resume (node_faults.h)
};

// The delay lines' figures now, cumulative since `up`.
struct DelayLinesStatus {
  size_t answering = 0;
  uint64_t released = 0, dropped = 0;
  LatenessHistogram lateness;
};

// The newest run's health, as `train` recorded it.
struct LastRunHealth {
  std::string file;
  nlohmann::json health;
};

// A link's two directions as LabStatus::links holds them, named as status's JSON and the
// lab's current values (current.json) name them.
inline constexpr std::array<const char*, 2> kLinkDirections = {"a2b", "b2a"};

struct LabStatus {
  LabState state;                 // the record: phase, source, plan, where to watch it
  std::vector<NodeStatus> nodes;  // in the plan's order
  std::vector<std::array<DirectionStatus, 2>> links;  // in the plan's order: a2b, b2a
  int changes_applied = 0;                            // the timeline's, so far
  double max_lag_ms = 0;                              // its worst lag
  // The routes' rule and count (routes_to_json), or the routes listed when asked or few.
  nlohmann::json routes;
  std::string routes_error;  // why they could not be listed
  std::optional<LabCompute> compute;
  std::optional<DelayLinesStatus> delay_lines;  // root, and a delay line answered
  std::optional<LastRunHealth> last_run;
  bool live = false;  // the kernel was asked
};

// `kernel` null (not root): the kernel's view is left out and nodes' presence unknown.
// Routes come as their rule and count, or listed (made again from the plan's rule): all
// of them for kAll, those of a lab with few enough to read for kFew (plan_table.h; people's
// tables), none for kNone (`--json` without `--routes`, whose shape must not hang on size).
enum class RouteListing { kNone, kFew, kAll };
LabStatus lab_status(const LabStore& store, const std::string& lab, Kernel* kernel,
                     RouteListing routes = RouteListing::kNone);

// The lab as `status --json` shows it (lab_status_json.cpp): the plan's own JSON of each
// node and link, the readings beside each. Written a node and a link at a time, the text
// nlohmann's dump(2) would give of the whole document, set `depth` levels in (a lab in a
// list of labs) without building its whole tree.
void write_status_json(std::ostream& out, const LabStatus& status, int depth = 0);

// The tables of one lab's status.
void print_lab_status(std::ostream& out, const LabStatus& status);

}  // namespace testbed
