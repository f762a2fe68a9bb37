// The session's side of a parameter-server variant, as a policy object (the agents' side is
// agent/protocols/ps/ps_policy.h). The session (ps_session.h) sets the agents up, watches
// them and sums up the run, and names no variant; a variant that runs something of its own
// beside the agents or a part of the agents' setup (MLfabric's scheduler and failover,
// DRPS's store, APSP's placement, Gaia's data centers) is a PsRunPolicy in its own folder
// under runs/, made by the list in runs/ps_run_policies.cpp when the run asks for it.
#pragma once

#include <functional>
#include <iosfwd>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/job.h"
#include "agent/protocols/ps/key_map.h"
#include "controller/dynamics/link_control.h"
#include "controller/options/run_options.h"
#include "controller/training/agent_group.h"
#include "controller/training/clock_communication.h"
#include "controller/training/strategy_registry.h"

namespace testbed {

// What a policy sees and does of the session.
class PsRun {
 public:
  virtual ~PsRun() = default;
  virtual const TrainOptions& options() const = 0;
  virtual const StrategyTraits& traits() const = 0;
  virtual const std::vector<std::string>& names() const = 0;         // the lab's nodes
  virtual const std::vector<LiveDirection>& directions() const = 0;  // as at the start
  // The lab's directions as they are now (the timeline's changes included).
  virtual std::vector<LiveDirection> directions_now() const = 0;
  virtual const std::vector<int>& servers() const = 0;       // node of each shard
  virtual void set_servers(std::vector<int> servers) = 0;    // after a server's failure
  virtual const std::vector<int>& worker_nodes() const = 0;  // per worker: its node
  virtual int worker_of_node(size_t node) const = 0;         // -1: no worker there
  virtual AgentGroup& agents() = 0;
  virtual std::ostream& progress() = 0;  // for people
  // What every node counted (its "stats" event), once the run is over.
  virtual const std::vector<nlohmann::json>& node_stats() const = 0;
  virtual const std::string& lab_dir() const = 0;  // "" when the run has none
  virtual double wall_s() const = 0;               // the run's length, once it is over
  // Each worker's clock stamps (in worker order), once the run is over.
  virtual std::vector<WorkerClockStamps> worker_stamps() const = 0;
  // An agent's event, handled as the session's loop handles it (a policy's own wait).
  virtual void handle_event(size_t node, const nlohmann::json& e, double t) = 0;
  // Whether a node's worker has finished its clocks (its `finished` event came).
  virtual bool finished(size_t node) const = 0;
  // The clocks a node's worker has ended so far (its `clock` events).
  virtual uint64_t clocks(size_t node) const = 0;
  // An event for the run's metrics (observe/train_metrics.h), "strategy" added.
  virtual void publish(nlohmann::json event) = 0;
};

class PsRunPolicy {
 public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  virtual ~PsRunPolicy() = default;
  // The roles, when the policy decides them (APSP: the placement's server; Gaia: a replica
  // in every data center): `workers` holds the options' workers, `servers` is empty; true
  // when decided. Throws UsageError for an option the run cannot take.
  virtual bool roles(std::vector<int>& /*workers*/, std::vector<int>& /*servers*/) { return false; }
  // Before the agents are set up, the roles known: the policy's part of their setup.
  // `parameters`: the model's. Throws UsageError for an option the run cannot take.
  virtual void setup(TrainingSetup& /*setup*/, const JobConfig& /*job*/, size_t /*parameters*/) {}
  // The workers were told to start, at `start_unix_s` on the wall clock.
  virtual void started(double /*start_unix_s*/) {}
  // An agent's event: true when the policy took it.
  virtual bool event(size_t /*node*/, const nlohmann::json& /*e*/, double /*t*/) { return false; }
  // What is due by `now_s` (s since the start); returns when it next has work.
  virtual double drive(double /*now_s*/) { return kNever; }
  // A node's agent died: true when the policy carries the run on (a failover, or a worker
  // an elastic run goes on without: its worker then counts as ended).
  virtual bool node_died(size_t /*node*/, double /*now_s*/) { return false; }
  // Whether a worker node's model is the run's at the end (an elastic run's member); the
  // final loss is the mean over those that are.
  virtual bool evaluates(size_t /*node*/) const { return true; }
  // Whether the run waits for a worker node's end (not for an elastic run's worker that
  // never came in).
  virtual bool awaited(size_t /*node*/) const { return true; }
  // The workers finished: what the policy must see done before the model is evaluated.
  virtual void settle(const std::function<double()>& /*now_s*/) {}
  // Its part of the run's summary, once every node's stats are in and the session's own
  // figures are written (`s["iteration_s"]`, `s["store"]`, ...).
  virtual void summary(nlohmann::json& /*s*/) const {}
  // The shards' keys when the policy placed them (DRPS's partition); null: contiguous.
  virtual const KeyMap* key_map() const { return nullptr; }
  // The run's consistency model when it is the policy's own (Gaia's); "" otherwise.
  virtual std::string consistency_label() const { return ""; }
  // What a server node is in the summary's roles when the policy says (Gaia's data
  // centers hold replicas); "" : a server shard.
  virtual std::string server_role() const { return ""; }
};

// Makes the policy when the run's strategy asks for it (null otherwise).
using PsRunPolicyMaker = std::unique_ptr<PsRunPolicy> (*)(PsRun& run);

}  // namespace testbed
