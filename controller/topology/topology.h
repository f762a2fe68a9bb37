// The topology model: pure data parsed from a profile, with no knowledge of the kernel.
// Mirrors what the user wrote; the planner derives everything else (names, addresses,
// routes, qdisc sizes).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/topology/cross_traffic.h"
#include "controller/topology/impairment_backend.h"
#include "controller/topology/units.h"
#include "netns/burst_loss.h"
#include "netns/ipv4.h"
#include "netns/node_cgroup.h"

namespace testbed {

// Where a value came from, so that later checks can still point at the file.
struct SourcePos {
  int line = 0;
  int column = 0;
};

// One change of a direction's parameters at a time offset from the start of the run.
struct ScheduleChange {
  int64_t at_us = 0;
  std::optional<Rate> rate;
  std::optional<Duration> delay;
  std::optional<Fraction> loss;
  // A fault: true cuts the direction (it carries nothing until it is up again), false
  // restores it. The other fields keep their meaning while it is down.
  std::optional<bool> down;
  bool operator==(const ScheduleChange&) const = default;
};

// How a direction's parameters change over time (see schedule.h for the expansion).
struct Schedule {
  enum class Kind { kNone, kSteps, kRandom, kTrace, kFlap };
  Kind kind = Kind::kNone;
  // kSteps, and kTrace once loaded: changes in time order.
  std::vector<ScheduleChange> changes;
  // kTrace: repeat every `period_us` when `loop`.
  bool loop = false;
  int64_t period_us = 0;
  std::string trace_file;
  // kRandom: every `every_us` a new rate, drawn uniformly from min..max in `step`
  // increments, or from `choices`, uniformly or by `weights` (one per choice, relative);
  // the draw is a function of (seed, direction, k) only.
  int64_t every_us = 0;
  Rate min_rate, max_rate, step;
  std::vector<Rate> choices;
  std::vector<double> weights;
  uint64_t seed = 0;
  // kFlap: the direction goes down and comes back up, forever. Periodic: down at every k *
  // `every_us` (k >= 1) for `down_for_us`. Random: up for an exponentially distributed
  // time of mean `up_mean_us`, then down for one of mean `down_mean_us`, and again; the
  // k-th draw is a function of (seed, direction, k) only.
  int64_t down_for_us = 0;
  int64_t up_mean_us = 0, down_mean_us = 0;
  bool operator==(const Schedule&) const = default;
};

// Shaping of one direction of a link, fully resolved (defaults and overrides applied).
struct DirectionParams {
  Rate rate;
  Duration delay;
  Duration jitter;
  Fraction loss;
  // Bursty loss instead of `loss` (burst_loss_parser.h); `loss` is then 0.
  std::optional<GilbertElliott> burst_loss;
  std::optional<QueueSize> queue;  // unset: the planner sizes it from the bandwidth-delay product
  bool reorder = false;            // let jitter reorder packets (a real FIFO link does not)
  Schedule schedule;
  // Down and up again at fixed times, apart from the schedule: the partitions that cut this
  // direction, merged (partitions.h). In time order, alternating, starting with a down.
  std::vector<ScheduleChange> faults;
  bool operator==(const DirectionParams&) const = default;
};

// What happens to a node's processes (node_events.h): every process of the lab in it, the
// testbed's agents, launched ranks and `exec` children, killed (a data center's servers
// lost) or stopped for a while (a machine that hangs: a long GC pause, a live migration);
// or, after a crash, its launched ranks run again (a server back, an elastic job rejoining).
// Or its CPU share changes (docs/compute.md): a data center losing or gaining machines.
struct NodeEvent {
  enum class Kind { kCrash, kPause, kResume, kRestart, kCpus, kLeave, kJoin };
  Kind kind = Kind::kCrash;
  int64_t at_us = 0;
  int64_t for_us = 0;          // a pause's length; a schedule's pause always has one
  std::optional<double> cpus;  // a kCpus event's share; unset: no limit ("all")
  SourcePos pos;
};

// A straggler's model (straggler.h): each `every`, with probability `chance`, the node's
// share divided by `slowdown` for that period.
struct StragglerModel {
  double chance = 0;    // in [0, 1]
  double slowdown = 1;  // > 1
  int64_t every_us = 0;
  uint64_t seed = 0;
  bool operator==(const StragglerModel&) const = default;
};

struct Node {
  std::string name;
  SourcePos pos;
  std::vector<NodeEvent> schedule;          // in time order
  ComputeLimits compute;                    // its CPUs and memory (node_compute.h); none by default
  std::optional<StragglerModel> straggler;  // its share's random slowdowns (straggler.h)
};

struct Link {
  size_t a = 0;  // index into Topology::nodes
  size_t b = 0;
  DirectionParams a2b;
  DirectionParams b2a;
  SourcePos pos;
};

enum class RouteMetric { kHops, kDelay };

// A convergence delay close to what a tuned IGP reaches on a WAN: BFD detects the loss in
// 150 ms (3 x 50 ms), the SPF runs after its 50 ms initial hold, and the FIB is written
// in about 100 ms. OSPF on its default timers (a 40 s dead interval) would take far longer;
// a profile says so with its own `convergence`.
constexpr int64_t kDefaultConvergenceUs = 300000;

struct Topology {
  std::string source_file;
  std::string lab;
  Ipv4Prefix pool{Ipv4Address{0xC6120000}, 15};  // 198.18.0.0/15, RFC 2544 benchmarking space
  RouteMetric metric = RouteMetric::kHops;
  ImpairmentBackend backend = ImpairmentBackend::kAuto;
  uint64_t seed = 1;  // seeds jitter and random schedules, so a run can be repeated exactly
  // `reroute:`: routes converge around a dead link this long after it goes down (and back
  // after it comes up); unset, routes are static and a dead link black-holes what it
  // carried (docs/faults.md#routing-around-failures).
  std::optional<int64_t> reroute_convergence_us;
  // The lab's default workload for `testbed train`: its option names and checked values
  // (strategy, model, scale, iterations, compute-ms, chunk, seed, update-time).
  std::map<std::string, std::string> workload;
  std::vector<Node> nodes;
  std::vector<Link> links;
  // A set of nodes cut from the rest from `at_us` until `heal_us`: every link crossing the
  // cut down, both ways (its directions' `faults`).
  struct Partition {
    std::vector<size_t> nodes;
    int64_t at_us = 0, heal_us = 0;
    SourcePos pos;
  };
  std::vector<Partition> partitions;
  // Other people's traffic on the WAN (cross_traffic.h).
  std::vector<CrossTraffic> cross_traffic;
};

}  // namespace testbed
