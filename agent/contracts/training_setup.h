// The setup command of a data-parallel training run (the parameter server and its variants,
// Gaia, all-reduce): what the controller's session sends every agent before the first
// clock, and what each agent's protocol reads. One struct, both ends: the controller fills
// it and writes it with to_json; an agent reads it with training_setup_from_json, which
// refuses a missing, mistyped, out-of-range or unknown field by name. The defaults a user
// does not set live here and nowhere else (the controller's options take them from here).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agent/contracts/drps/store_setup.h"
#include "agent/contracts/gaia/gaia_setup.h"
#include "agent/contracts/van_setup.h"

namespace testbed {

// The model, as every node builds it alike (agent/jobs' JobConfig, less the worker count).
struct JobSetup {
  std::string name;
  uint64_t seed = 0;
  double scale = 1;
  uint64_t parameters = 0;   // dense jobs only: a named model's size; 0 for the others
  int workers_per_node = 1;  // workers a node's worker stands for (its data center's)
  bool t_in_passes = false;  // the jobs' "t": a clock is a pass over the data, not a batch
  bool operator==(const JobSetup&) const = default;
};

// Emulated compute per worker and clock: a uniform draw in [min_ms, max_ms], and now and
// then a straggler (MLfabric, Sec. 7) slowed `straggler_factor` times.
struct ComputeSetup {
  int min_ms = 0, max_ms = 0;
  double straggler_share = 0;   // in [0, 1]
  double straggler_factor = 1;  // >= 1
  // The clock's milliseconds burnt as CPU rather than waited (agent/jobs/emulated_compute.h;
  // `--compute-as cpu`). On the wire "as": "cpu", absent for the default wait.
  bool on_cpu = false;
  bool operator==(const ComputeSetup&) const = default;
};

// APSP's source route (Sec. 4): a flow's path from a worker to the server, node by node,
// and the rate its transfer is paced at in "model" mode.
struct SourceRoute {
  std::vector<int> nodes;       // from ... to, at least two
  double pace_bytes_per_s = 0;  // 0: unpaced
  bool operator==(const SourceRoute&) const = default;
};

struct TrainingSetup {
  // SSP's bound s (and WSP's delta) when a user gives none (`--staleness`'s default in
  // docs/training.md): a bound that lets a worker run a few clocks ahead of the slowest,
  // which is where SSP differs from BSP; the papers name no one value.
  static constexpr int kDefaultStaleness = 3;
  // A worker's held-out evaluation every half second (`--eval-every`'s default): ten points
  // or more on the curve of the shortest runs (about 5 s of training).
  static constexpr int kDefaultEvalIntervalMs = 500;
  // WSP's delta when there is none (`--staleness none`): no read is ever held by the bound.
  // The largest staleness a setup may carry.
  static constexpr int kNoBound = 1 << 30;

  VanSetup van;  // the agent's runtime builds the van from it, for every protocol

  // "ps", "gaia", "allreduce", or another system's own (agent/protocols/protocol_registry.cpp,
  // which refuses a name it does not know).
  std::string protocol;
  std::string algorithm;  // the all-reduce's, where one is used: "ring" or "tree"; else ""
  JobSetup job;
  std::map<int, double> slow;  // node -> compute time factor (a slow data center)
  std::vector<int> workers;    // the node of each worker
  std::vector<int> servers;    // the node of each shard (empty without a server)
  // The parameter server's model ("bsp", "ssp", "async" or "wsp"); "" (and absent on the
  // wire) for Gaia and all-reduce, whose models are their own.
  std::string consistency;
  int staleness = kDefaultStaleness;
  int iterations = 0;
  ComputeSetup compute;
  uint64_t seed = 0;
  int eval_interval_ms = kDefaultEvalIntervalMs;

  // Each system's part, read by its own protocol: present only for that system.
  std::optional<std::vector<SourceRoute>> routes;  // APSP: the placement's routes
  std::string transfer;             // APSP: how routed transfers go ("native", ...), or ""
  std::optional<GaiaSetup> gaia;    // Gaia: thresholds and mirrors (gaia_setup.h)
  std::optional<StoreSetup> store;  // DRPS: the shards' stores on disk (store_setup.h)
  // Where the shards' keys are (DRPS's partition, Sec. 5): a file of the key map the
  // parameter server's core reads (key_map.h); "" for contiguous ranges.
  std::string key_partition;
  bool scheduled = false;     // MLfabric: updates go when the scheduler says
  bool distribution = false;  // MLfabric: the model goes out through distributors
  int pull_batch_ms = 0;      // MLfabric-A: pulls batched at the server, or 0
  int replica = -1;           // MLfabric: the replica's node, or -1
  // MLfabric-A's alternative to a replica (Sec. 7.3): the server writes its model to `path`
  // every `every` updates; a cold standby node `standby` loads it when the server dies.
  struct Checkpoint {
    uint64_t every = 0;  // 0: no checkpoints
    std::string path;
    int standby = -1;
    bool operator==(const Checkpoint&) const = default;
  } checkpoint;
  // A system's own options (the controller's registry table, controller/training/
  // system_options.h), read by that system's protocol through its own struct; null for a
  // system without a table.
  nlohmann::json policy;

  // This node's compute factor: 1 unless `slow` names it.
  double slowdown(int node) const;
  bool operator==(const TrainingSetup&) const = default;
};

nlohmann::json to_json(const TrainingSetup& s);
// Throws ContractError (message_fields.h) naming the field.
TrainingSetup training_setup_from_json(const nlohmann::json& j);

}  // namespace testbed
