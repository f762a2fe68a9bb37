#include "controller/runs/diloco/elastic_membership.h"

#include <algorithm>

#include "agent/contracts/elastic_messages.h"
#include "controller/dynamics/lab_json_file.h"
#include "controller/dynamics/node_faults.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/plan.h"
#include "controller/options/usage_error.h"

namespace testbed {

namespace {
// How often the lab's node states are read for a leave: a fraction of any outer step.
constexpr double kPollEvery_s = 0.25;
}  // namespace

void ElasticMembership::setup(TrainingSetup& setup) {
  // Outside at the start: a node whose schedule brings it in later (its first leave, join
  // or crash is a join not yet due), or one whose last request was a leave, before the run.
  const std::string& dir = run_.lab_dir();
  if (dir.empty()) return;
  const Plan plan = plan_from_json(read_json_object(dir + "/plan.json"));
  const double lab_s = lab_time_s(dir);
  const nlohmann::json states = read_node_states(dir);
  for (int w : run_.worker_nodes()) {
    const std::string& name = run_.names().at(static_cast<size_t>(w));
    bool outside = false;
    for (const auto& n : plan.nodes) {
      if (n.name != name) continue;
      for (const auto& ev : n.events) {
        if (ev.kind != NodeEvent::Kind::kJoin && ev.kind != NodeEvent::Kind::kLeave &&
            ev.kind != NodeEvent::Kind::kCrash)
          continue;
        outside = ev.kind == NodeEvent::Kind::kJoin && static_cast<double>(ev.at_us) / 1e6 > lab_s;
        break;
      }
    }
    const auto it = states.find(name);
    if (it != states.end() && it->is_object() && it->value("event", "") == "leave") outside = true;
    if (outside) away_.insert(w);
  }
  if (away_.size() == run_.worker_nodes().size())
    throw UsageError("every worker starts outside the elastic run: one must be in");
  if (!away_.empty()) setup.policy["away"] = std::vector<int>(away_.begin(), away_.end());
  const int h = setup.policy.value("inner_steps", 1);
  rounds_ = static_cast<uint64_t>((setup.iterations + h - 1) / std::max(h, 1));
}

void ElasticMembership::started(double start_unix_s) {
  start_unix_s_ = start_unix_s;
  for (int n : run_.worker_nodes()) {
    run_.agents().allow_death(static_cast<size_t>(n));
    if (away_.count(n)) continue;
    members_.push_back(n);
    member_since_[n] = 0;
  }
  members_over_time_.push_back({0.0, members_.size()});
  publish_members(nullptr);
}

void ElasticMembership::record(const Change& c) {
  changes_.push_back(c);
  members_over_time_.push_back({c.t, members_.size()});
  publish_members(&c);
}

// Who is in, for the run's metrics: a dashboard draws the members over time and marks each
// change (testbed_elastic_members, testbed_elastic_member, ..._changes_total).
void ElasticMembership::publish_members(const Change* c) {
  nlohmann::json e = {{"event", "membership"}, {"members", nlohmann::json::array()}};
  for (int m : members_) e["members"].push_back(run_.names().at(static_cast<size_t>(m)));
  e["outside"] = nlohmann::json::array();
  for (int w : run_.worker_nodes())
    if (!in(static_cast<size_t>(w)))
      e["outside"].push_back(run_.names().at(static_cast<size_t>(w)));
  if (c) e["change"] = {{"node", c->node}, {"what", c->what}, {"t_s", c->t}};
  run_.publish(std::move(e));
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
    if (commits_ >= rounds_ || members_.empty()) break;
    if (!away_.count(j)) continue;  // still draining: it comes back at the next commit
    joining_.erase(j);
    away_.erase(j);
    member_since_[j] = t;
    const int donor = members_.front();
    donor_[j] = donor;
    run_.agents().send(static_cast<size_t>(donor), to_json(SendModelCommand{j}));
    members_.push_back(j);
    record({t, run_.names().at(static_cast<size_t>(j)), "join", commits_, 0.0});
    catching_up_[j] = changes_.size() - 1;
  }
  // The drained leave now: their last round is in.
  for (int m : std::vector<int>(members_)) {
    if (!leaving_.count(m)) continue;
    run_.agents().send(static_cast<size_t>(m), to_json(LeaveCommand{}));
    std::erase(members_, m);
    leaving_.erase(m);
    away_.insert(m);  // it may come back: a join brings it in again
    end_member_time(m, t);
    record({t, run_.names().at(static_cast<size_t>(m)), "leave", commits_, 0.0});
  }
}

bool ElasticMembership::event(size_t node, const nlohmann::json& e, double t) {
  const std::string kind = e.value("event", "");
  const int n = static_cast<int>(node);
  if (kind == RoundReady::kEvent) {
    round_ready_from_json(e);
    if (!in(node)) return true;
    // A joiner ready last: the others waited for it.
    if (const auto j = joined_change_.find(n); j != joined_change_.end()) {
      bool others_ready = true;
      for (int m : members_) others_ready = others_ready && (m == n || ready_.count(m));
      if (others_ready) changes_[j->second].lost_s = t - last_ready_t_;
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
    Change& change = changes_[it->second];
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
    for (int m : members_)
      if (m != n && m != joiner) {
        donor = m;
        run_.agents().send(static_cast<size_t>(m), to_json(SendModelCommand{joiner}));
        break;
      }
  }
  std::erase(members_, n);
  ready_.erase(n);
  reduced_.erase(n);
  leaving_.erase(n);
  joining_.erase(n);
  crashed_.insert(n);
  end_member_time(n, t);
  Change c{t, run_.names().at(node), "crash", commits_};
  bool others_ready = !members_.empty();
  for (int m : members_) others_ready = others_ready && ready_.count(m);
  if (in_flight_)
    c.lost_s = t - issued_t_;  // the attempt, begun again below
  else if (others_ready)
    c.lost_s = t - last_ready_t_;  // they waited for the dead one
  record(c);
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
  if (now_s < next_poll_s_) return next_poll_s_;
  next_poll_s_ = now_s + kPollEvery_s;
  if (run_.lab_dir().empty()) return next_poll_s_;
  const nlohmann::json states = read_node_states(run_.lab_dir());
  for (size_t node = 0; node < run_.names().size(); ++node) {
    const auto it = states.find(run_.names()[node]);
    if (it == states.end() || !it->is_object()) continue;
    const std::string event = it->value("event", "");
    if (event != "leave" && event != "join") continue;
    const double at = it->value("at_unix_s", 0.0);
    const std::string key = run_.names()[node] + "@" + std::to_string(at);
    if (at < start_unix_s_ || !requests_seen_.insert(key).second) continue;
    const int n = static_cast<int>(node);
    // A leave keeps one member at least; one of a node told to join, not yet in, cancels it.
    if (event == "leave" && in(node) && members_.size() > leaving_.size() + 1) leaving_.insert(n);
    if (event == "leave" && joining_.count(n) && away_.count(n)) joining_.erase(n);
    // A join of one still draining (told to leave, not yet out) is taken at the commit after.
    if (event == "join" && (away_.count(n) || leaving_.count(n)) && !crashed_.count(n))
      joining_.insert(n);
  }
  return next_poll_s_;
}

void ElasticMembership::end_member_time(int node, double t) {
  const auto it = member_since_.find(node);
  if (it == member_since_.end()) return;
  member_s_[node] += std::max(0.0, t - it->second);
  member_since_.erase(it);
}

// Compute utilization over the time each data center was a member (from the start or its
// join's commit, catch-up included, to its leave, crash or the run's end): the time its
// provider was paid for. The run's `compute_utilization` divides by the whole wall time
// instead, so a node away half the run reads half; this one reads what its time in got.
nlohmann::json ElasticMembership::utilization_of_member_time(const nlohmann::json& s) const {
  const double wall = s.value("wall_s", 0.0);
  const nlohmann::json* per_worker = nullptr;
  if (s.contains("compute_utilization") && s["compute_utilization"].contains("per_worker"))
    per_worker = &s["compute_utilization"]["per_worker"];
  nlohmann::json per = nlohmann::json::object();
  double computing_sum = 0, member_sum = 0;
  for (int w : run_.worker_nodes()) {
    double member = member_s_.count(w) ? member_s_.at(w) : 0.0;
    if (const auto it = member_since_.find(w); it != member_since_.end())
      member += std::max(0.0, wall - it->second);
    const std::string& name = run_.names().at(static_cast<size_t>(w));
    const double computing =
        per_worker && per_worker->contains(name) ? (*per_worker)[name].get<double>() * wall : 0.0;
    if (member <= 0) continue;  // never in
    per[name] = {{"member_s", member}, {"utilization", std::min(1.0, computing / member)}};
    computing_sum += computing;
    member_sum += member;
  }
  return {{"mean", member_sum > 0 ? std::min(1.0, computing_sum / member_sum) : 0.0},
          {"member_s", member_sum},
          {"per_worker", per}};
}

void ElasticMembership::summary(nlohmann::json& s) const {
  nlohmann::json& diloco = s["diloco"];
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : changes_) {
    changes.push_back({{"t_s", c.t},
                       {"node", c.node},
                       {"change", c.what},
                       {"outer_step", c.outer_step},
                       {"seconds_lost", c.lost_s}});
    if (c.what == "join") {
      changes.back()["catch_up_bytes"] = c.catch_up_bytes;
      changes.back()["catch_up_s"] =
          c.catch_up_s < 0 ? nlohmann::json() : nlohmann::json(c.catch_up_s);
    }
  }
  nlohmann::json over_time = nlohmann::json::array();
  for (const auto& [t, k] : members_over_time_) over_time.push_back({{"t_s", t}, {"members", k}});
  std::vector<std::string> members;
  for (int m : members_) members.push_back(run_.names().at(static_cast<size_t>(m)));
  diloco["membership"] = {{"elastic", true},
                          {"members_at_end", members},
                          {"changes", changes},
                          {"members_over_time", over_time},
                          {"outer_steps_committed", commits_},
                          {"attempts_lost", attempts_lost_},
                          {"compute_utilization_of_member_time", utilization_of_member_time(s)}};
}

}  // namespace testbed
