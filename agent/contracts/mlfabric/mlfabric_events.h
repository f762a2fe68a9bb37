// What an MLfabric server tells the controller's scheduler as the run goes (Sec. 4 and 5 of
// the paper): a worker's update announced (the scheduler plans its path and time from its
// size and norm), an ordered push arrived (compared with the arrival planned), the replica's
// progress (the server's sends wait on it, Sec. 5.2) and MLfabric-A's batch of pulls (the
// distributors' plan). One struct each: the agent's MlfabricPolicy
// (agent/protocols/mlfabric/) writes them, the controller's MlfabricRun
// (controller/runs/mlfabric/) and its check of agents' replies read them; every field is
// required and anything missing, out of range or unknown is refused with its name.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace testbed {

// A worker's update for clock `clock`, computed on model version `version`: what its push
// will carry (bytes) and its norm, for the paper's divergence estimate (Eq. 11).
struct UpdateAnnounced {
  static constexpr const char* kEvent = "update";
  uint64_t clock = 0;
  uint64_t version = 0;
  uint64_t bytes = 0;
  double norm = 0;
};

// The pushes the server held over one batching interval, as (worker's node, clock) pairs.
struct PullBatch {
  static constexpr const char* kEvent = "pulls";
  uint64_t batch = 0;
  std::vector<size_t> workers;   // node indices, each once
  std::vector<uint64_t> clocks;  // one per worker
};

// The scheduled push `seq` reached the server.
struct UpdateArrived {
  static constexpr const char* kEvent = "arrived";
  uint64_t seq = 0;
};

// The replica has applied `applied` ordered updates.
struct ReplicaApplied {
  static constexpr const char* kEvent = "replica";
  uint64_t applied = 0;
};

nlohmann::json to_json(const UpdateAnnounced& e);
nlohmann::json to_json(const PullBatch& e);
nlohmann::json to_json(const UpdateArrived& e);
nlohmann::json to_json(const ReplicaApplied& e);

// Each throws ContractError naming the field. `max_clock` bounds a clock (the run's
// iterations and a margin); `nodes` the lab's size.
UpdateAnnounced update_announced_from_json(const nlohmann::json& j, uint64_t max_clock);
PullBatch pull_batch_from_json(const nlohmann::json& j, size_t nodes, uint64_t max_clock);
UpdateArrived update_arrived_from_json(const nlohmann::json& j);
ReplicaApplied replica_applied_from_json(const nlohmann::json& j);

// The check of a reply whose "event" is one of these four; any other is left alone.
void check_mlfabric_event(const nlohmann::json& j, size_t nodes, uint64_t max_clock);

}  // namespace testbed
