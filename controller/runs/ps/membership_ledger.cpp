#include "controller/runs/ps/membership_ledger.h"

#include <algorithm>

namespace testbed {

void MembershipLedger::start(const std::vector<int>& members) {
  for (int m : members) member_since_[m] = 0;
  members_over_time_.push_back({0.0, members.size()});
  publish(members, nullptr);
}

size_t MembershipLedger::record(const Change& c, const std::vector<int>& members) {
  int node = -1;
  for (size_t n = 0; n < run_.names().size(); ++n)
    if (run_.names()[n] == c.node) node = static_cast<int>(n);
  if (c.what == "join") {
    member_since_[node] = c.t;
  } else if (const auto it = member_since_.find(node); it != member_since_.end()) {
    member_s_[node] += std::max(0.0, c.t - it->second);
    member_since_.erase(it);
  }
  changes_.push_back(c);
  members_over_time_.push_back({c.t, members.size()});
  publish(members, &c);
  return changes_.size() - 1;
}

// Who is in, for the run's metrics: a dashboard draws the members over time and marks each
// change (testbed_elastic_members, testbed_elastic_member, ..._changes_total).
void MembershipLedger::publish(const std::vector<int>& members, const Change* c) {
  nlohmann::json e = {{"event", "membership"},
                      {"members", nlohmann::json::array()},
                      {"outside", nlohmann::json::array()}};
  for (int w : run_.worker_nodes()) {
    const bool in = std::find(members.begin(), members.end(), w) != members.end();
    e[in ? "members" : "outside"].push_back(run_.names().at(static_cast<size_t>(w)));
  }
  if (c) e["change"] = {{"node", c->node}, {"what", c->what}, {"t_s", c->t}};
  run_.publish(std::move(e));
}

// Compute utilization over the time each worker was a member (from the start or its join
// to its leave, crash or the run's end): the time its provider was paid for. The run's
// `compute_utilization` divides by the whole wall time instead, so a node away half the
// run reads half; this one reads what its time in got.
nlohmann::json MembershipLedger::utilization_of_member_time(const nlohmann::json& s) const {
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

void MembershipLedger::summary(nlohmann::json& section, const nlohmann::json& s,
                               const std::vector<int>& members) const {
  nlohmann::json changes = nlohmann::json::array();
  for (const auto& c : changes_) {
    changes.push_back({{"t_s", c.t},
                       {"node", c.node},
                       {"change", c.what},
                       {step_name_, c.step},
                       {"seconds_lost", c.lost_s}});
    if (c.what == "join") {
      changes.back()["catch_up_bytes"] = c.catch_up_bytes;
      changes.back()["catch_up_s"] =
          c.catch_up_s < 0 ? nlohmann::json() : nlohmann::json(c.catch_up_s);
    }
  }
  nlohmann::json over_time = nlohmann::json::array();
  for (const auto& [t, k] : members_over_time_) over_time.push_back({{"t_s", t}, {"members", k}});
  std::vector<std::string> at_end;
  for (int m : members) at_end.push_back(run_.names().at(static_cast<size_t>(m)));
  section["elastic"] = true;
  section["members_at_end"] = at_end;
  section["changes"] = changes;
  section["members_over_time"] = over_time;
  section["compute_utilization_of_member_time"] = utilization_of_member_time(s);
}

}  // namespace testbed
