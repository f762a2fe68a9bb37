// The messages of an elastic all-reduce run (DiLoCo's: docs/diloco.md), one struct
// each, shared by the agents (agent/protocols/allreduce/elastic_reduce.h) and the
// controller (controller/runs/diloco/elastic_membership.h). The controller holds the
// membership, as INTELLECT-1's ElasticDeviceMesh keeps its global group in a store:
//   agent -> controller  round_ready {round, last}  its round's inner steps are done,
//                                               its pseudo-gradients held; `last`: the
//                                               run has no round after this one
//   controller -> agents reduce {seq, members}  all-reduce them over these nodes; `seq`
//                                               numbers every attempt, so a frame of an
//                                               attempt a death cut short is told apart
//   agent -> controller  round_reduced {seq}    the attempt's sum is complete here
//   controller -> agents commit {seq, members}  apply it (averaged over `members`)
//   controller -> agent  leave {}               drained: its last round committed, it ends
//   controller -> agent  send_model {to}        a donor: send the shared model (and its
//                                               outer momentum) to a joining node, over the
//                                               WAN, with the clock it starts at
//   agent -> controller  caught_up {clock, bytes}  a joiner took the model; it computes
//                                               from that clock and is in the next round
// A member that dies before a commit costs the attempt: the controller reissues the round
// over those left, who reduce the same pseudo-gradients again.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace testbed {

struct RoundReady {
  static constexpr const char* kEvent = "round_ready";
  uint64_t round = 0;  // the worker's outer steps so far
  // No round follows in the run: a join after its commit would have none to take. The
  // agents say so, as only their system knows its schedule (DiLoCo's rounds of H steps,
  // Streaming DiLoCo's fragments H/P steps apart).
  bool last = false;
};
struct RoundReduced {
  static constexpr const char* kEvent = "round_reduced";
  uint64_t seq = 0;
};
struct ReduceCommand {
  static constexpr const char* kCmd = "reduce";
  uint64_t seq = 0;
  std::vector<int> members;  // nodes, in ring order
};
struct CommitCommand {
  static constexpr const char* kCmd = "commit";
  uint64_t seq = 0;
  int members = 0;  // how many contributed: the average's divisor
};
struct LeaveCommand {
  static constexpr const char* kCmd = "leave";
};
struct SendModelCommand {
  static constexpr const char* kCmd = "send_model";
  int to = 0;  // the joining node
};
struct CaughtUp {
  static constexpr const char* kEvent = "caught_up";
  uint64_t clock = 0;  // the first clock it computes
  uint64_t bytes = 0;  // the model's bytes as they crossed the WAN
};
// The chunk tag of the model a donor sends a joiner (a kRing frame; a ring's tags are its
// steps, far below this).
constexpr uint32_t kModelChunk = 0xffffffffu;

nlohmann::json to_json(const RoundReady& m);
nlohmann::json to_json(const RoundReduced& m);
nlohmann::json to_json(const ReduceCommand& m);
nlohmann::json to_json(const CommitCommand& m);
nlohmann::json to_json(const LeaveCommand& m);
nlohmann::json to_json(const SendModelCommand& m);
nlohmann::json to_json(const CaughtUp& m);
// Each throws ContractError naming the field; `nodes`: the lab's, which a member is below.
RoundReady round_ready_from_json(const nlohmann::json& j);
RoundReduced round_reduced_from_json(const nlohmann::json& j);
ReduceCommand reduce_command_from_json(const nlohmann::json& j, size_t nodes);
CommitCommand commit_command_from_json(const nlohmann::json& j, size_t nodes);
SendModelCommand send_model_command_from_json(const nlohmann::json& j, size_t nodes);
CaughtUp caught_up_from_json(const nlohmann::json& j);

}  // namespace testbed
