#include "agent/protocols/ps_elastic/elastic_worker_policy.h"

#include <stdexcept>

#include "agent/contracts/ps_elastic_messages.h"

namespace testbed {

bool ElasticWorkerPolicy::command(const std::string& verb, const nlohmann::json& /*cmd*/) {
  if (verb == PsLeaveCommand::kCmd) {
    if (!away_) leaving_ = true;
    return true;
  }
  if (verb != PsJoinCommand::kCmd) return false;
  leaving_ = false;  // a join before the leave took effect: it stays
  if (!away_) return true;
  away_ = false;
  core_.reply(to_json(PsJoined{clock_}));
  core_.resume_pulls();
  return true;
}

bool ElasticWorkerPolicy::holds_pull(uint64_t clock) {
  clock_ = clock;
  if (leaving_) {
    leaving_ = false;
    away_ = true;
    core_.reply(to_json(PsLeft{clock}));
  }
  return away_;
}

std::unique_ptr<PsPolicy> make_elastic_worker_policy(const TrainingSetup& setup, PsCore& core) {
  if (!setup.policy.is_object() || setup.policy.value("elastic", "off") != "on") return nullptr;
  if (core.worker_index(core.self()) < 0) return nullptr;  // a server only
  bool away = false;
  if (setup.policy.contains("away")) {
    const nlohmann::json& list = setup.policy["away"];
    if (!list.is_array()) throw std::invalid_argument("setup's policy.away is not a list of nodes");
    for (const auto& n : list)
      away = away || (n.is_number_integer() && n.get<int>() == core.self());
  }
  return std::make_unique<ElasticWorkerPolicy>(core, away);
}

}  // namespace testbed
