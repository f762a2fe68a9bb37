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
  int delay_bound = 0;       // mlfabric-a's tau_max in versions; 0: one per worker
  int aggregators = -1;      // mlfabric-a's aggregators per batch; -1: one per worker
  std::string replica;       // mlfabric-a's hot-standby replica's node; empty: none
  int div_max = -1;          // its bound on the server's lead; -1: one per worker
  std::string standby;       // mlfabric-a's cold standby for checkpoints; empty: none
  int checkpoint_every = 0;  // the server's checkpoint every so many updates; 0: none
  // The strategy's own options (its registry table, system_options.h), typed, defaults
  // filled; null for a strategy without a table. Sent to its agents as is.
  nlohmann::json policy;
  bool distribution = true;          // mlfabric-a/-s: model distribution through distributors
  bool monitor_arrivals = false;     // mlfabric: an overdue message keeps its path busy
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
  // Gaia (ASP): the significance threshold v, the data-center staleness DS (-1: off), and
  // the soft threshold. Defaults: the paper's 1%; DS and soft are our choices (docs/gaia.md).
  double gaia_threshold = 0.01;
  int gaia_ds = 2;
  bool gaia_soft = false;
  int gaia_local_staleness = -1;  // --gaia-local ssp:S; -1: bsp
  // Sec. 4.5's data-center groups: off (every data center sends to every other), auto
  // (from the lab's rates, gaia_groups.h), or groups by hand: "a,b/c,d,e".
  std::string gaia_groups = "auto";
  // --gaia-partition: what a data center does once a mirror is presumed cut off
  // (agent/protocols/gaia/mirror_watch.h): `continue` trains on without it, `block` holds
  // its readers as the paper's rules read literally (docs/faults.md).
  std::string gaia_partition = "continue";
  // --gaia-t: the t of Gaia's v/sqrt(t) and of the job's step schedule counts passes over
  // the data (gaia's default) or clocks (every other strategy's, the job as it was).
  bool t_in_passes = false;
  // DRPS: where the servers keep their parameters (memory, or disk: a RocksDB store per
  // shard in the lab's directory) and the store's memory budget.
  std::string store = "memory";
  int memory_budget_mb = 1;  // RocksStoreOptions' default, in MiB
  std::string store_dir;     // set by train: the lab's
  // A lab spread over hosts: where the controller listens for the agents of other hosts'
  // nodes (tcp://ADDR:PORT, from `train --agents-listen ADDR:PORT`); empty on one box.
  std::string agents_listen;
  // The van's security (--van-security): "plain" (the run's secret, PLAIN), "curve" (keys new
  // for the run, encrypted), or "" for the default: CURVE over hosts, PLAIN on one box, where
  // the van never leaves the machine (docs/multihost.md#security).
  std::string van_security;
  // The parameter index (Sec. 4) of the disk-resident stores: on or off, the top k merged
  // per round, the share of sampled batches a key must be read by to be indexed.
  bool index = false;
  int index_k = 50;  // the paper's k
  double index_prune = 0.9;
  // Multi-objective partitioning (Sec. 5, Alg. 3): every block placed on a shard by its
  // disk and network costs, instead of split_keys' contiguous ranges.
  bool partition = false;
  // Placement strategies (apsp, ps-most-connected, ps-random): the dense job's size, and
  // how the placement is computed and its routes are crossed.
  bool placement = false;
  size_t job_parameters = 0;        // dense: floats in the model
  std::string server;               // NAME@NODE or --server: the server (or star hub) fixed
  std::string apsp_mode = "model";  // model (store-and-forward, paced) or native
  std::string capacity = "undirected";
  int draws = 1;  // roundings; the best is kept
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
