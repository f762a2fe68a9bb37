// What a training run runs: the one place that turns `testbed train`'s command line and the
// lab profile's `workload:` section (over built-in defaults) into one validated set of run
// options. Option names and profile keys are the same words (workload_settings.h).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <set>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/compute_time.h"
#include "agent/protocols/tree/sync_policy.h"
#include "controller/options/usage_error.h"
#include "controller/options/workload_settings.h"

namespace testbed {

// A run's nodes and the single-process reference sum floats in other orders, so BSP's
// parameters differ from the reference's by rounding only; this bounds that for the jobs'
// magnitudes and iteration counts (the exactness check of both the tree and PS runs).
constexpr double kReferenceTolerance = 1e-4;

constexpr int kDefaultIterations = 10;  // when neither the command line nor the profile says

struct TrainOptions {
  std::string strategy;
  int iterations = kDefaultIterations;
  ModelProfile model;
  bool logreg = false;  // the real training job instead of a model's size
  double scale = 0.1;
  size_t elements = 0;                         // floats synchronized per iteration
  int compute_min_ms = 0, compute_max_ms = 0;  // compute time per node and iteration
  uint32_t chunk = 0;
  uint64_t seed = 1;
  double update_time_s = 5;
  AuxiliaryPaths aux;  // knobs only
  bool oracle = false, json = false;
  bool probe_only = false;
  uint32_t probe_count = 0;
  size_t probe_bytes = 0;
  std::string probe_link;
  // Parameter-server strategies (bsp, ssp, async, drps): the job they train, and how.
  bool ps = false;
  std::string job;  // logreg, mf, lmf, sparse-lr
  // The lab's fit to the machine (controller/lab/fit): the model's bytes were scaled by
  // this with the lab's rates (apply_fit_factor); 1 when not.
  double fit_factor = 1.0;
  // The servers' consistency model: the strategy's name, or drps's --parallel.
  std::string consistency = "bsp";
  int staleness = TrainingSetup::kDefaultStaleness;  // ssp's bound s, wsp's delta
  // The strategy's own options (its registry table, system_options.h), typed, defaults
  // filled; null for a strategy without a table. Sent to its agents as is; the system's
  // run reads them through its own typed view (gaia_knobs, mlfabric_knobs, ...).
  nlohmann::json policy;
  std::string servers;               // all, best, or node names separated by commas
  std::string worker_nodes = "all";  // all, or node names separated by commas
  std::optional<double> target_loss;
  double max_seconds = 0;  // wall-time budget; 0: the iterations alone bound the run
  double eval_every_s = TrainingSetup::kDefaultEvalIntervalMs / 1000.0;
  int workers_per_dc = 1;  // workers each node stands for (its data center's)
  // share: kTargetShare of BSP; converged: Sec. 5.3 of Gaia; long-run: within 1% of where
  // single-process BSP ends the run (DRPS's rows timed to convergence)
  std::string target_rule = "share";
  std::map<std::string, double> slow;  // node -> compute time factor
  Stragglers stragglers;               // each worker's clock slowed now and then (MLfabric)
  // --compute-as cpu: the compute time burnt on the node's CPU (so its `cpus` limit and a
  // profile's straggler throttle it), not waited (agent/jobs/emulated_compute.h).
  bool compute_on_cpu = false;
  // --gaia-t: the t of Gaia's v/sqrt(t) and of the job's step schedule counts passes over
  // the data (gaia's default) or clocks (every other strategy's, the job as it was).
  bool t_in_passes = false;
  // Where the servers keep their parameters (memory, or disk: a RocksDB store per shard in
  // the lab's directory; its knobs are the store's table's, disk_store_options.h).
  std::string store = "memory";
  std::string store_dir;  // set by train: the lab's
  // A lab spread over hosts: where the controller listens for the agents of other hosts'
  // nodes (tcp://ADDR:PORT, from `train --agents-listen ADDR:PORT`); empty on one box.
  std::string agents_listen;
  // The van's security (--van-security): "plain" (the run's secret, PLAIN), "curve" (keys new
  // for the run, encrypted), or "" for the default: CURVE over hosts, PLAIN on one box, where
  // the van never leaves the machine (docs/multihost.md#security).
  std::string van_security;
  // Placement strategies (apsp, ps-most-connected, ps-random; their knobs are
  // apsp_options.h's): the dense job's size.
  bool placement = false;
  size_t job_parameters = 0;  // dense: floats in the model
  std::string server;         // NAME@NODE or --server: the server (or star hub) fixed
};

// What the command line said: each --name VALUE, and each --name given alone.
struct CommandLine {
  std::map<std::string, std::string> options;
  std::set<std::string> flags;

  std::optional<std::string> option(const std::string& name) const;
  bool flag(const std::string& name) const { return flags.count(name) > 0; }
};

// The command line's settings that are not workload keys: NetStorm's probe, for benchmarks.
const std::vector<std::string>& command_line_only_keys();
// Flags the command line may give: --json, --oracle, --probe-only.
const std::vector<std::string>& run_flags();

// `workload` is the profile's workload section as {key: text}, possibly empty.
// Throws UsageError naming the option and where its value came from.
TrainOptions resolve_train_options(const CommandLine& args, const nlohmann::json& workload);

// A run on a lab whose rates were scaled by `factor` (`up --fit scale`): its model scaled
// alike, so that an iteration moves as many times fewer bytes as its links are slower and
// takes the time it takes at the profile's rates. A named model's size (the tree
// strategies' elements, the dense job's parameters) is scaled, and so is a real job's own
// scale (its data with its model: docs/fit.md). The logreg job of the tree strategies has
// a fixed size and is left as it is (its bytes are few). Throws UsageError when nothing is
// left of the model.
void apply_fit_factor(TrainOptions& o, double factor);

// The compute time of `node` in `iteration`: fixed, or drawn uniformly from the range by
// a function of (seed, node, iteration) only, so a run repeats exactly.
int compute_ms(const TrainOptions& o, int node, uint64_t iteration);

}  // namespace testbed
