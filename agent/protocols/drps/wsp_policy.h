// DRPS's WSP on the parameter server (Sec. 6), as the core's policy: one master decides for
// the whole job. It runs on the first server's node; workers tell it when an iteration
// began (kWspStart) and ask it for their next clock (kWspAsk, with the iteration's length
// as they measured it) while their pulls go to the shards as under every model. The
// master's selector (wsp_selector.h) answers at once or forms a waiting set; each request
// it lets go becomes a grant to every shard (kWspGrant), naming the pushes of each worker
// the read must reflect, and a shard answers the pull once those are applied
// (ps/server_shard.h's grant: WSP is one of the core's consistency models).
//
// Messages:
//   kWspAsk    worker -> master  iteration: the clock asked for; tag: the iteration's ns
//   kWspStart  worker -> master  iteration: the clock whose parameters arrived
//   kWspGrant  master -> shards  iteration: the clock; chunk: the worker's index; keys:
//                                each worker's pushes the read must reflect
#pragma once

#include <chrono>
#include <memory>

#include "agent/protocols/drps/wsp_selector.h"
#include "agent/protocols/ps/ps_policy.h"

namespace testbed {

class WspPolicy : public PsPolicy {
 public:
  explicit WspPolicy(PsCore& core);
  void iteration_started(uint64_t clock) override;
  void next_pull(uint64_t clock) override;
  bool takes(const WireHeader& h) const override;
  void message(Received r) override;
  void stats(nlohmann::json& node, nlohmann::json* shard) const override;

 private:
  using Clock = std::chrono::steady_clock;
  void tell_master(WireKind kind, uint64_t clock, int64_t iteration_ns);
  void on_grant(const Received& r);

  PsCore& core_;
  int master_;                         // the first server's node
  std::unique_ptr<WspSelector> wsp_;   // on the master's node only
  Clock::time_point iteration_start_;  // as a worker: its parameters' arrival
};

// The registry's maker: a WspPolicy under the WSP consistency model, else none.
std::unique_ptr<PsPolicy> make_wsp_policy(const TrainingSetup& setup, PsCore& core);

}  // namespace testbed
