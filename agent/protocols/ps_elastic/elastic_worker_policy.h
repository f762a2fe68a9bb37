// An asynchronous parameter server's worker that may leave and join (the elastic
// parameter server: agent/contracts/ps_elastic_messages.h), as the core's policy. Told to
// leave, it pushes the clock it computes and then holds its next pull: it waits outside,
// its clock kept. Told to join (or, outside from the start, told for the first time), it
// pulls the servers' latest values, which is all a catch-up is when the servers hold the
// model, and goes on from its own clock. A crash needs nothing here: the servers of an
// asynchronous run wait for no worker.
#pragma once

#include <memory>

#include "agent/contracts/training_setup.h"
#include "agent/protocols/ps/ps_policy.h"

namespace testbed {

class ElasticWorkerPolicy : public PsPolicy {
 public:
  ElasticWorkerPolicy(PsCore& core, bool away) : core_(core), away_(away) {}
  bool command(const std::string& verb, const nlohmann::json& cmd) override;
  void next_pull(uint64_t clock) override { clock_ = clock; }
  bool holds_pull(uint64_t clock) override;

 private:
  PsCore& core_;
  bool away_;             // outside: its pulls held
  bool leaving_ = false;  // told to leave: the next pull is held
  uint64_t clock_ = 0;    // the clock it pulls (or would pull) next
};

// Made for a worker when the setup's policy has elastic: on (its `away` lists the nodes
// outside at the start); null otherwise.
std::unique_ptr<PsPolicy> make_elastic_worker_policy(const TrainingSetup& setup, PsCore& core);

}  // namespace testbed
