// A scenario: one WAN experiment to run the same way every time (`testbed run`), and the
// verdict on it. Pure data, parsed strictly (every error at FILE:LINE:COL), like
// profiles. The topology is a profile (a path relative to the scenario, a bundled name,
// or inline); dynamics are the profile's own schedules, compressed by time_scale, plus
// events that change one link at a given time; each strategy runs in turn on a freshly
// brought-up lab, so all see the same seeded network timeline.
//
//   name: bad-link
//   topology: internet2.yaml
//   dynamics:
//     time_scale: 0.1
//     events: [{at: 100s, link: [chicago, kansascity], bandwidth: 5mbit},
//              {at: 120s, link: [chicago, kansascity], state: down},
//              {at: 150s, node: denver, event: crash}]
//   workload: {model: resnet50, scale: 0.1, iterations: 8}
//   fit: scale                       # optional: fit each lab to the machine (docs/fit.md)
//   rate_scale: 1                    # optional: every link rate times this (fixed, steps,
//                                    # and the rates a random schedule draws from)
//   reroute: static                  # optional: or {convergence: 300ms}; over the topology's
//   strategies: [netstorm-lite, netstorm-std]   # NAME@NODE fixes a server; NAME@* sweeps
//   #  or a variant with settings of its own:  - {name: drps-wsp, strategy: drps, parallel: wsp}
//   #  and a lab of its own:  - {name: async-cpu, strategy: async, topology: other.yaml}
//   #  or a user's own job, run by `testbed launch` beside the built-in strategies:
//   #     - {name: ddp, command: [python3, "{scenario_dir}/train.py"], nodes: all,
//   #        target-loss: 0.5, max-seconds: 600}
//   concurrent: true                 # optional: all strategies at once on one lab
//   repetitions: 1
//   # or seeds: [1, 2, 3]   a repetition per seed: the lab's (random schedules, jitter) and
//   #                       the workload's (data, stragglers, draws) seed, both set to it
//   expect:
//     - netstorm-std / netstorm-lite >= 1.2      # ratio of samples/s
//     - mean_iteration_s(netstorm-std) <= 5      # a bound on one strategy's figure
//     - no node failed
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/topology/diagnostics.h"

namespace testbed {

struct LinkEvent {
  double at_s = 0;  // schedule time (before time_scale)
  std::string a, b;
  std::string direction = "both";      // a2b (a sends to b), b2a, both
  std::string bandwidth, delay, loss;  // as written (checked units); empty: unchanged
  std::string state;                   // down or up (a fault, docs/faults.md); empty: unchanged
};

// A node's fault at a time (docs/faults.md): written into the node's `schedule`.
// A partition: these nodes cut from the rest from `at` until `heal` (the profile's
// `partitions:`, docs/faults.md), times as written.
struct PartitionEvent {
  std::vector<std::string> nodes;
  std::string at_text, heal_text;
};

struct NodeFaultEvent {
  double at_s = 0;
  std::string node;
  std::string event;      // crash, pause, restart or cpus
  std::string for_text;   // a pause's length, as written
  std::string cpus_text;  // a cpus event's share, as written
};

// Expectations on what the strategies achieved:
//   kRatio        A / B >= X                      samples/s of A over B's
//   kBound        figure(A) <= X
//   kFigureRatio  figure(A) / figure(B) <= X      e.g. time_to_loss(ssp) / time_to_loss(bsp)
//   kRelative     figure(A) <= X * figure(B)      e.g. final_loss(async) <= 1.05 * final_loss(bsp)
//   kNoNodeFailed
//   kEmulationHealthy  every run's emulation stayed within the health thresholds
// Figures: mean_iteration_s, samples_per_s, max_iteration_s, aux_share; for the
// parameter-server strategies also time_to_loss (to the target loss, s), final_loss,
// wan_bytes and max_staleness; for the placement strategies comm_time_s (the median
// iteration after a warm-up) and model_ratio (comm_time_s over the placement's prediction);
// for every strategy the emulation's health: release_lateness_p99_ms,
// emulator_lateness_p99_ms (less the host's stalls), cpu_saturated_share and
// min_rate_ratio (the worst over repetitions); for MLfabric-A runs whose server died and
// failed over (docs/faults.md), failover_updates_lost and failover_recovery_s (the crash to
// the first update applied at the new server), the worst over repetitions; for Gaia runs
// through a fault, divergence_at_heal (the replicas' relative distance at the heal) and
// catch_up_s (from the heal until they are back to where they were when the fault began;
// a run that never caught up fails any bound on it), the worst over repetitions; for
// every run compute_utilization (time computing over wall time, the workers' mean), and
// for an elastic run (DiLoCo, the asynchronous parameter server) membership_changes and
// member_utilization (over each worker's time in), the means over repetitions.
struct Expectation {
  enum class Kind {
    kRatio,
    kBound,
    kFigureRatio,
    kRelative,
    kNoNodeFailed,
    kEmulationHealthy
  } kind = Kind::kNoNodeFailed;
  std::string text;                 // as written, to name it when it fails
  std::string metric, over_metric;  // of strategy, of over
  std::string strategy, over;
  std::string op;  // >=, <=, >, <
  double value = 0;
};

// The figures expectations may name.
const std::vector<std::string>& expectation_figures();

// One expectation's text parsed (expectation_parser.cpp); nullopt with `why` set when it
// is none of the forms or names an unknown figure.
std::optional<Expectation> parse_expectation(const std::string& text, std::string& why);

// A user's program run by `testbed launch` in each chosen node ("command" in a strategy
// entry), judged by the same expectations as the built-in strategies.
struct LaunchedJob {
  std::vector<std::string> command;  // {scenario_dir} is replaced by the scenario's folder
  std::string nodes = "all";
  std::map<std::string, std::string> options;  // target-loss, max-seconds, master-port
};

struct Scenario {
  std::string file;
  std::string name;
  std::string topology_path;    // resolved; empty when inline
  std::string topology_inline;  // YAML text of an inline topology
  double time_scale = 1.0;
  // Every link rate of the topology (and of its steps and events) times this: a machine
  // that cannot shape the paper's rates runs them scaled, with the model scaled alike.
  double rate_scale = 1.0;
  // `fit: scale|refuse|off` (docs/fit.md): each lab fitted to this machine's budget after
  // rate_scale; `run --fit` overrides it. Empty: up's default (off).
  std::string fit;
  // Routing around dead links, over the topology's own: "static" (none), "default" (the
  // profile's default convergence), or a convergence delay ("300ms") as the profile's
  // `reroute: {convergence: ...}`. Empty: the topology's.
  std::string reroute;
  std::vector<LinkEvent> events;
  std::vector<NodeFaultEvent> node_events;
  std::vector<PartitionEvent> partitions;
  // `cross_traffic:` as written (a YAML list, topology/cross_traffic.h), added to the
  // topology's own; the profile parser judges it. Empty: none.
  std::string cross_traffic_yaml;
  // `capture: all` or `capture: {snaplen: N}`: every run's packets on every link direction
  // into runs/TAG.pcapng (`testbed capture --all` beside the run); unset: no capture.
  // Headers only by default (128 bytes a packet): a run's whole traffic is large.
  std::optional<int> capture_snaplen;
  std::map<std::string, std::string> workload;  // train options, as in profiles
  std::vector<std::string> strategies;          // as reported: a strategy, or a variant's name
  // A variant's train settings over `workload`, its strategy among them, by its name.
  std::map<std::string, std::map<std::string, std::string>> variants;
  // A variant's own topology (a resolved profile path) in place of the scenario's, the
  // events, rate_scale and reroute applied alike: e.g. its nodes' compute throttled where
  // another variant's waits (profiles/scenarios/mlfabric-compute/).
  std::map<std::string, std::string> variant_topologies;
  std::map<std::string, LaunchedJob> jobs;  // by name: the strategies that are launched jobs
  // `concurrent: true`: every strategy of a repetition side by side on one lab (one `train`
  // at most, any number of launched jobs; docs/jobs.md), each judged on its own summary.
  bool concurrent = false;
  int repetitions = 1;
  std::vector<uint64_t> seeds;  // when given: repetition r runs with seeds[r - 1]
  std::vector<Expectation> expectations;
};

// Throws ValidationError with every problem found.
Scenario parse_scenario_file(const std::string& path);
Scenario parse_scenario_text(const std::string& text, const std::string& file);

// The profile the scenario runs: `topology_yaml` with its lab renamed to `lab` and each
// event added to its direction's schedule as a step. Throws ValidationError (naming the
// scenario file) for an event on a link the topology lacks or that already has a schedule.
// With `seed`, the profile's `seed` is set to it (its random schedules and jitter draw anew).
std::string derive_topology(const Scenario& s, const std::string& topology_yaml,
                            const std::string& lab, std::optional<uint64_t> seed = std::nullopt);

// What one strategy achieved over the scenario's repetitions (means), or failed.
struct StrategyOutcome {
  bool failed = false;
  std::string failure;
  std::map<std::string, double> figures;     // mean_iteration_s, samples_per_s, ...
  std::vector<std::string> health_problems;  // of every repetition; empty when healthy
};

struct Verdict {
  std::string expectation;
  bool passed = false;
  std::string detail;  // the measured value(s), or why it could not be judged
};

std::vector<Verdict> judge(const Scenario& s, const std::map<std::string, StrategyOutcome>& by);

}  // namespace testbed
