// A system's part of the parameter server, as a policy object the core calls at a few fixed
// points (the model: Mahimahi's queue policies behind one small interface). The core
// (ps_protocol.h) runs the workers' loop of pull, compute and push and the shards under
// their consistency model, and names no system; a system's own behaviour lives in its
// folder (drps/, apsp/, ...) as a PsPolicy, made by the registry above the protocols
// (protocols/protocol_registry.cpp) when the setup asks for it.
//
// Adding a policy: a class in the system's folder, a maker that returns null
// when the setup does not ask for it, and one line in the registry's list.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/job.h"
#include "agent/protocols/ps/consistency.h"
#include "agent/protocols/ps/key_map.h"
#include "agent/protocols/ps/server_shard.h"
#include "agent/transport/routed_transfer.h"
#include "agent/transport/van.h"

namespace testbed {

// What a policy may see and do of the core: the job's layout, this node's shard, and the
// core's one way of sending key-value messages.
class PsCore {
 public:
  virtual ~PsCore() = default;
  virtual int self() const = 0;
  virtual const std::vector<int>& workers() const = 0;  // node of each worker
  virtual const std::vector<int>& servers() const = 0;  // node of each shard
  virtual int worker_index(int node) const = 0;         // -1: no worker
  virtual const Consistency& consistency() const = 0;
  virtual const KeyMap& keys() const = 0;
  virtual float initial_value(uint32_t job_key) const = 0;  // the job's starting value
  virtual ServerShard* shard() = 0;                         // null: this node holds none
  virtual int shard_index() const = 0;                      // this node's shard; -1: none
  // The worker index of `h`'s sender, once `h` is checked to be a worker's message for this
  // node's shard (the core's own check; it throws what the core would).
  virtual int checked_sender(const WireHeader& h) const = 0;
  // What the worker's values reflect: the least version (or clock) of its shards' answers.
  virtual uint64_t read_version() const = 0;
  virtual RoutedTransfer& transfer() = 0;
  // Answers pulls as the core answers them (a shard's replies after a push or a grant).
  virtual void send_replies(const std::vector<PullReply>& replies) = 0;
  virtual void reply(const nlohmann::json& event) = 0;  // an event to the controller
  // The worker takes `r` as a shard's answer to its pull (a model passed on by another node).
  virtual void deliver_params(const Received& r) = 0;
  virtual void count_densified_push() = 0;  // a sparse update a policy sent dense
  // A server's failure (MLfabric's failover): the shards from now, this node's shard's new
  // values, and the pull under way asked again of them (false: none was under way).
  virtual void set_servers(std::vector<int> servers) = 0;
  virtual void replace_shard(std::unique_ptr<ServerShard> shard) = 0;
  virtual bool ask_again() = 0;
  // The worker's pull held by a policy (holds_pull) is made now, for the clock it held.
  virtual void resume_pulls() = 0;
};

class PsPolicy {
 public:
  virtual ~PsPolicy() = default;
  // The values of this node's shard `shard` (range `range`), when the policy keeps them
  // (DRPS: on disk); null leaves them in memory. Asked once, during the setup.
  virtual std::unique_ptr<ShardValues> shard_values(int /*shard*/, KeyRange /*range*/) {
    return nullptr;
  }
  // This node holds a copy of shard 0 though it serves none (MLfabric's replica or
  // standby); the name its statistics go under when it is not "server".
  virtual bool holds_shard_copy() const { return false; }
  virtual const char* shard_role() const { return nullptr; }
  // A command of the controller's the core does not know: true when the policy took it.
  virtual bool command(const std::string& /*verb*/, const nlohmann::json& /*cmd*/) { return false; }
  // Messages the policy takes instead of the core (a kind of its own, or a flag on one of
  // the core's): asked of every part's header, then the message, whole, goes to `message`.
  virtual bool takes(const WireHeader& /*h*/) const { return false; }
  virtual void message(Received /*r*/) {}
  // The worker's parameters for `clock` arrived: its iteration begins.
  virtual void iteration_started(uint64_t /*clock*/) {}
  // The worker computed `update` for `clock`: true when the policy took it (MLfabric holds
  // it for the scheduler's word); else the core pushes it to the shards.
  virtual bool computed(uint64_t /*clock*/, SparseUpdate& /*update*/) { return false; }
  // The worker is about to pull for `clock`, the one after its last update.
  virtual void next_pull(uint64_t /*clock*/) {}
  // Whether the worker's pull for `clock` waits (an elastic worker outside) until the
  // policy calls the core's resume_pulls; asked before every pull of its loop, the first
  // included.
  virtual bool holds_pull(uint64_t /*clock*/) { return false; }
  // A shard's answer to a pull, its header filled by the core: the policy may restamp it
  // and may take its sending over (true: the core sends nothing).
  virtual bool answer(const PullReply& /*p*/, WireHeader& /*reply*/) { return false; }
  virtual void tick() {}  // sends what is due by now
  virtual std::chrono::milliseconds timeout() const { return std::chrono::milliseconds(-1); }
  // What the policy adds to the node's statistics; `shard` is the shard's own section
  // (null on a node without one), filled before the shard's values are read.
  virtual void stats(nlohmann::json& /*node*/, nlohmann::json* /*shard*/) const {}
};

// Makes the policy when `setup` asks for it (null otherwise), over the core it serves.
using PsPolicyMaker = std::unique_ptr<PsPolicy> (*)(const TrainingSetup& setup, PsCore& core);

}  // namespace testbed
