#include "controller/launch/lab_rank_faults.h"

#include <algorithm>

#include "controller/dynamics/node_faults.h"

namespace testbed {

// nodes.json is read whole at each call of these two: it is a few hundred bytes per
// faulted node, and the runner asks only when a rank has died or waits for its restart.
std::optional<int> LabRankFaults::crash_of(const std::string& node, pid_t pid) {
  const nlohmann::json all = read_node_states(lab_dir_);
  const auto it = all.find(node);
  if (it == all.end() || !it->is_object() || !it->contains("crash")) return std::nullopt;
  const nlohmann::json& crash = (*it)["crash"];
  const auto pids = crash.value("pids", std::vector<int>{});
  if (std::find(pids.begin(), pids.end(), static_cast<int>(pid)) == pids.end()) return std::nullopt;
  return crash.value("restarts", 0);
}

int LabRankFaults::restarts(const std::string& node) {
  const nlohmann::json all = read_node_states(lab_dir_);
  const auto it = all.find(node);
  return it == all.end() || !it->is_object() ? 0 : it->value("restarts", 0);
}

const nlohmann::json& LabRankFaults::states_for_poll() {
  const auto now = std::chrono::steady_clock::now();
  if (!read_at_ || now - *read_at_ >= kStatesFreshFor) {
    states_ = read_node_states(lab_dir_);
    read_at_ = now;
  }
  return states_;
}

// nodes.json keeps a node's latest event: a leave or a join is a membership request.
std::optional<MembershipRequest> LabRankFaults::membership(const std::string& node) {
  const nlohmann::json& all = states_for_poll();
  const auto it = all.find(node);
  if (it == all.end() || !it->is_object()) return std::nullopt;
  const std::string event = it->value("event", "");
  if (event != "leave" && event != "join") return std::nullopt;
  return MembershipRequest{event, it->value("at_unix_s", 0.0)};
}

}  // namespace testbed
