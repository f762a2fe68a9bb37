#include "controller/runs/diloco/elastic_membership.h"

#include <algorithm>
#include <optional>

#include "agent/contracts/elastic_messages.h"
#include "controller/dynamics/lab_json_file.h"
#include "controller/dynamics/node_faults.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/plan.h"
#include "controller/options/usage_error.h"

namespace testbed {

void ElasticMembership::setup(TrainingSetup& setup) {
  away_ = workers_outside_at_start(run_.lab_dir(), run_.names(), run_.worker_nodes());
  if (away_.size() == run_.worker_nodes().size())
    throw UsageError("every worker starts outside the elastic run: one must be in");
  if (!away_.empty()) setup.policy["away"] = std::vector<int>(away_.begin(), away_.end());
}

void ElasticMembership::started(double start_unix_s) {
  requests_.started(start_unix_s);
  for (int n : run_.worker_nodes()) {
    run_.agents().allow_death(static_cast<size_t>(n));
    if (!away_.count(n)) members_.push_back(n);
  }
  ledger_.start(members_);
}

bool ElasticMembership::in(size_t node) const {
  return std::find(members_.begin(), members_.end(), static_cast<int>(node)) != members_.end();
}

void ElasticMembership::try_reduce(double t) {
  if (in_flight_ || members_.empty()) return;
  for (int m : members_)
    if (!ready_.count(m)) return;
  issue(t);
}

void ElasticMembership::issue(double t) {
  ++seq_;
  issued_t_ = t;
  in_flight_ = true;
  reduced_.clear();
  for (int m : members_)
    run_.agents().send(static_cast<size_t>(m), to_json(ReduceCommand{seq_, members_}));
}

void ElasticMembership::commit(double t) {
  in_flight_ = false;
  ready_.clear();
  ++commits_;
  for (int m : members_)
    run_.agents().send(static_cast<size_t>(m),
                       to_json(CommitCommand{seq_, static_cast<int>(members_.size())}));
  // Joiners: a member sends each the shared model; it is in the next round. Not after the
  // last round: there is none for it to take.
  for (int j : std::vector<int>(joining_.begin(), joining_.end())) {
    if (last_round_ || members_.empty()) break;
    if (!away_.count(j)) continue;  // still draining: it comes back at the next commit
    const std::optional<int> donor = donor_for(-1);
    if (!donor) break;
    joining_.erase(j);
    away_.erase(j);
    donor_[j] = *donor;
    run_.agents().send(static_cast<size_t>(*donor), to_json(SendModelCommand{j}));
    // Into the ring at its place in the workers' order (the profile's), not at its end: a
    // ring laid out across each continent in turn stays so, where an appended joiner
    // would add ocean crossings to every round after (docs/intellect1.md).
    const std::vector<int>& order = run_.worker_nodes();
    const auto rank = [&](int n) {
      return std::find(order.begin(), order.end(), n) - order.begin();
    };
    members_.insert(
        std::find_if(members_.begin(), members_.end(), [&](int m) { return rank(m) > rank(j); }),
        j);
    catching_up_[j] =
        ledger_.record({t, run_.names().at(static_cast<size_t>(j)), "join", commits_}, members_);
  }
  // The drained leave now: their last round is in.
  for (int m : std::vector<int>(members_)) {
    if (!leaving_.count(m)) continue;
    run_.agents().send(static_cast<size_t>(m), to_json(LeaveCommand{}));
    std::erase(members_, m);
    leaving_.erase(m);
    away_.insert(m);  // it may come back: a join brings it in again
    ledger_.record({t, run_.names().at(static_cast<size_t>(m)), "leave", commits_}, members_);
  }
}

// A member that holds the shared model: not a joiner still catching up (its model is the
// one it left with, or none), nor `except`. Measured: a joiner placed first in the ring
// became the next joiner's donor at the same commit, which then started from its stale
// model and clock, and the run stalled.
std::optional<int> ElasticMembership::donor_for(int except) const {
  for (int m : members_)
    if (m != except && !catching_up_.count(m)) return m;
  return std::nullopt;
}

bool ElasticMembership::event(size_t node, const nlohmann::json& e, double t) {
  const std::string kind = e.value("event", "");
  const int n = static_cast<int>(node);
  if (kind == RoundReady::kEvent) {
    const RoundReady ready = round_ready_from_json(e);
    if (!in(node)) return true;
    last_round_ = last_round_ || ready.last;
    // A joiner ready last: the others waited for it.
    if (const auto j = joined_change_.find(n); j != joined_change_.end()) {
      bool others_ready = true;
      for (int m : members_) others_ready = others_ready && (m == n || ready_.count(m));
      if (others_ready) ledger_.change(j->second).lost_s = t - last_ready_t_;
      joined_change_.erase(j);
    }
    ready_.insert(n);
    last_ready_t_ = t;
    try_reduce(t);
    return true;
  }
  if (kind == CaughtUp::kEvent) {
    const CaughtUp c = caught_up_from_json(e);
    const auto it = catching_up_.find(n);
    if (it == catching_up_.end()) return true;
    MembershipLedger::Change& change = ledger_.change(it->second);
    change.catch_up_bytes = c.bytes;
    change.catch_up_s = t - change.t;
    joined_change_[n] = it->second;
    catching_up_.erase(it);
    donor_.erase(n);
    return true;
  }
  if (kind == RoundReduced::kEvent) {
    const RoundReduced r = round_reduced_from_json(e);
    if (!in_flight_ || r.seq != seq_ || !in(node)) return true;  // an attempt given up
    reduced_.insert(n);
    for (int m : members_)
      if (!reduced_.count(m)) return true;
    commit(t);
    return true;
  }
  return false;
}

bool ElasticMembership::node_died(size_t node, double t) {
  const int n = static_cast<int>(node);
  if (!in(node)) {  // it had left, or never came in: its end is no loss
    away_.erase(n);
    joining_.erase(n);
    return true;
  }
  // A joiner's donor died before sending: another member sends the model.
  for (auto& [joiner, donor] : donor_) {
    if (donor != n) continue;
    if (const std::optional<int> m = donor_for(n)) {
      donor = *m;
      run_.agents().send(static_cast<size_t>(*m), to_json(SendModelCommand{joiner}));
    }
  }
  std::erase(members_, n);
  ready_.erase(n);
  reduced_.erase(n);
  leaving_.erase(n);
  joining_.erase(n);
  crashed_.insert(n);
  MembershipLedger::Change c{t, run_.names().at(node), "crash", commits_};
  bool others_ready = !members_.empty();
  for (int m : members_) others_ready = others_ready && ready_.count(m);
  if (in_flight_)
    c.lost_s = t - issued_t_;  // the attempt, begun again below
  else if (others_ready)
    c.lost_s = t - last_ready_t_;  // they waited for the dead one
  ledger_.record(c, members_);
  catching_up_.erase(n);
  joined_change_.erase(n);
  donor_.erase(n);
  if (members_.empty()) return false;  // no one left to carry the run
  if (in_flight_) {
    // Those left were all in the attempt, their values held: they reduce them again.
    ++attempts_lost_;
    issue(t);
  } else {
    try_reduce(t);
  }
  return true;
}

double ElasticMembership::drive(double now_s) {
  double next_s = 0;
  for (const auto& [node, leave] : requests_.poll(now_s, next_s)) {
    const int n = static_cast<int>(node);
    // A leave keeps one member at least; one of a node told to join, not yet in, cancels it.
    if (leave && in(node) && members_.size() > leaving_.size() + 1) leaving_.insert(n);
    if (leave && joining_.count(n) && away_.count(n)) joining_.erase(n);
    // A join of one still draining (told to leave, not yet out) is taken at the commit after.
    if (!leave && (away_.count(n) || leaving_.count(n)) && !crashed_.count(n)) joining_.insert(n);
  }
  return next_s;
}

void ElasticMembership::summary(nlohmann::json& s) const {
  nlohmann::json& m = s["diloco"]["membership"];
  ledger_.summary(m, s, members_);
  m["outer_steps_committed"] = commits_;
  m["attempts_lost"] = attempts_lost_;
}

}  // namespace testbed
