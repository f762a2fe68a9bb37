#include "controller/runs/ps_elastic/elastic_ps_run.h"

#include <algorithm>

#include "agent/contracts/message_fields.h"
#include "agent/contracts/ps_elastic_messages.h"
#include "controller/options/usage_error.h"

namespace testbed {

std::unique_ptr<PsRunPolicy> make_elastic_ps_run(PsRun& run) {
  const nlohmann::json& policy = run.options().policy;
  if (run.traits().kind != StrategyKind::kServer || !policy.is_object() ||
      policy.value("elastic", "off") != "on")
    return nullptr;
  return std::make_unique<ElasticPsRun>(run);
}

void ElasticPsRun::setup(TrainingSetup& setup, const JobConfig&, size_t) {
  // A bound on staleness, or a barrier, waits for every worker: only an asynchronous run's
  // servers go on without one.
  if (setup.consistency != "async")
    throw UsageError("--ps-elastic on needs an asynchronous run (--strategy async): under " +
                     setup.consistency + " the servers wait for every worker");
  std::set<int> away = workers_outside_at_start(run_.lab_dir(), run_.names(), run_.worker_nodes());
  if (away.size() == run_.worker_nodes().size())
    throw UsageError("every worker starts outside the elastic run: one must be in");
  outside_ = away;
  joined_ = away;  // when they come in, it is mid-run
  if (!away.empty()) setup.policy["away"] = std::vector<int>(away.begin(), away.end());
}

void ElasticPsRun::started(double start_unix_s) {
  requests_.started(start_unix_s);
  for (int w : run_.worker_nodes()) {
    run_.agents().allow_death(static_cast<size_t>(w));
    if (!outside_.count(w)) members_.push_back(w);
  }
  ledger_.start(members_);
}

bool ElasticPsRun::in(int node) const {
  return std::find(members_.begin(), members_.end(), node) != members_.end();
}

bool ElasticPsRun::evaluates(size_t node) const {
  const int n = static_cast<int>(node);
  return in(n) && !joined_.count(n);
}

double ElasticPsRun::drive(double now_s) {
  double next_s = 0;
  // The members from the start are done (finished, or gone): the joiners stop too.
  if (!joiners_stopped_ && !joined_.empty()) {
    bool done = true;
    for (int w : run_.worker_nodes())
      if (!joined_.count(w) && !crashed_.count(w) && !outside_.count(w) &&
          !run_.finished(static_cast<size_t>(w)))
        done = false;
    if (done) {
      joiners_stopped_ = true;
      for (int j : joined_)
        if (in(j)) run_.agents().send(static_cast<size_t>(j), {{"cmd", "stop"}});
    }
  }
  for (const auto& [node, leave] : requests_.poll(now_s, next_s)) {
    const int n = static_cast<int>(node);
    if (run_.worker_of_node(node) < 0 || crashed_.count(n)) continue;
    if (leave && in(n) && !leaving_.count(n) && members_.size() > leaving_.size() + 1) {
      leaving_.insert(n);  // one member at least stays
      run_.agents().send(node, to_json(PsLeaveCommand{}));
    } else if (!leave && (outside_.count(n) || leaving_.count(n))) {
      // Outside: it comes in; still draining: the leave is called off (the worker keeps
      // pulling), as the join's request came before its leave took effect.
      leaving_.erase(n);
      run_.agents().send(node, to_json(PsJoinCommand{}));
    }
  }
  return next_s;
}

bool ElasticPsRun::event(size_t node, const nlohmann::json& e, double t) {
  try {
    return take(node, e, t);
  } catch (const ContractError&) {
    return true;  // a malformed membership event is dropped: the membership stays as it was
  }
}

bool ElasticPsRun::take(size_t node, const nlohmann::json& e, double t) {
  const std::string kind = e.value("event", "");
  const int n = static_cast<int>(node);
  if (kind == PsLeft::kEvent) {
    const PsLeft left = ps_left_from_json(e);
    if (!in(n)) return true;
    std::erase(members_, n);
    leaving_.erase(n);
    outside_.insert(n);
    joined_.insert(n);  // if it comes back, it is a joiner
    ledger_.record({t, run_.names().at(node), "leave", left.clock}, members_);
    return true;
  }
  if (kind == PsJoined::kEvent) {
    const PsJoined joined = ps_joined_from_json(e);
    if (in(n) || !outside_.count(n)) return true;
    outside_.erase(n);
    members_.push_back(n);
    ledger_.record({t, run_.names().at(node), "join", joined.clock}, members_);
    return true;
  }
  return false;
}

bool ElasticPsRun::node_died(size_t node, double t) {
  const int n = static_cast<int>(node);
  if (run_.worker_of_node(node) < 0) return false;  // a server: its shard is gone
  crashed_.insert(n);
  leaving_.erase(n);
  if (!in(n)) {  // outside: nothing was waiting on it
    outside_.erase(n);
    return true;
  }
  std::erase(members_, n);
  ledger_.record({t, run_.names().at(node), "crash", run_.clocks(node)}, members_);
  return !members_.empty();  // no worker left to carry the run
}

void ElasticPsRun::summary(nlohmann::json& s) const {
  ledger_.summary(s["membership"], s, members_);
}

}  // namespace testbed
