#include "controller/runs/ps/node_requests.h"

#include "controller/dynamics/lab_json_file.h"
#include "controller/dynamics/node_faults.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/plan.h"

namespace testbed {

std::set<int> workers_outside_at_start(const std::string& lab_dir,
                                       const std::vector<std::string>& names,
                                       const std::vector<int>& workers) {
  std::set<int> outside_set;
  if (lab_dir.empty()) return outside_set;
  const Plan plan = plan_from_json(read_json_object(lab_dir + "/plan.json"));
  const double lab_s = lab_time_s(lab_dir);
  const nlohmann::json states = read_node_states(lab_dir);
  for (int w : workers) {
    const std::string& name = names.at(static_cast<size_t>(w));
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
    if (outside) outside_set.insert(w);
  }
  return outside_set;
}

std::vector<NodeRequests::Request> NodeRequests::poll(double now_s, double& next_s) {
  std::vector<Request> out;
  if (now_s < next_poll_s_) {
    next_s = next_poll_s_;
    return out;
  }
  next_poll_s_ = now_s + kPollEvery_s;
  next_s = next_poll_s_;
  if (lab_dir_.empty()) return out;
  const nlohmann::json states = read_node_states(lab_dir_);
  for (size_t node = 0; node < names_.size(); ++node) {
    const auto it = states.find(names_[node]);
    if (it == states.end() || !it->is_object()) continue;
    const std::string event = it->value("event", "");
    if (event != "leave" && event != "join") continue;
    const double at = it->value("at_unix_s", 0.0);
    if (at < start_unix_s_ || !seen_.insert(names_[node] + "@" + std::to_string(at)).second)
      continue;
    out.push_back({node, event == "leave"});
  }
  return out;
}

}  // namespace testbed
