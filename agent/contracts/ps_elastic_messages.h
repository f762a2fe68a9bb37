// The messages of an elastic asynchronous parameter server (docs/faults.md: a worker that
// leaves, joins or crashes), one struct each, shared by the workers
// (agent/protocols/ps_elastic/elastic_worker_policy.h) and the controller
// (controller/runs/ps_elastic/elastic_ps_run.h):
//   controller -> worker  ps_leave {}        drained: it pushes the clock it computes,
//                                            then pulls no more and waits outside
//   worker -> controller  ps_left {clock}    its last update is pushed; `clock` is the
//                                            one it would have pulled next
//   controller -> worker  ps_join {}         it pulls the servers' latest values (its
//                                            catch-up) and goes on from its own clock
//   worker -> controller  ps_joined {clock}  the clock it pulls for now
// The servers hold the model, so a joiner's catch-up is a pull like any other; a
// worker's clocks stay its own (a shard counts each worker's pushes in order).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace testbed {

struct PsLeaveCommand {
  static constexpr const char* kCmd = "ps_leave";
};
struct PsJoinCommand {
  static constexpr const char* kCmd = "ps_join";
};
struct PsLeft {
  static constexpr const char* kEvent = "ps_left";
  uint64_t clock = 0;
};
struct PsJoined {
  static constexpr const char* kEvent = "ps_joined";
  uint64_t clock = 0;
};

nlohmann::json to_json(const PsLeaveCommand& m);
nlohmann::json to_json(const PsJoinCommand& m);
nlohmann::json to_json(const PsLeft& m);
nlohmann::json to_json(const PsJoined& m);
// Each throws ContractError naming the field.
PsLeft ps_left_from_json(const nlohmann::json& j);
PsJoined ps_joined_from_json(const nlohmann::json& j);

}  // namespace testbed
