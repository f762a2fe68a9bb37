#include "controller/launch/launch_report.h"

#include <string.h>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace testbed {

std::string describe_status(int status) {
  if (status > 128) {
    const char* name = strsignal(status - 128);
    return "signal " + std::to_string(status - 128) + (name ? std::string(" (") + name + ")" : "");
  }
  return "status " + std::to_string(status);
}

namespace {

// A job that reports its iterations' compute (job_metrics.h: compute_s) gets the built-in
// runs' compute_utilization: each node's compute over the job's wall time, and the nodes'
// mean; and compute_utilization_of_member_time: over each node's own time in (its runs,
// from a join to a leave), the time an elastic job's provider was paid for.
void add_compute_utilization(nlohmann::json& s, const nlohmann::json& nodes, double wall_s) {
  nlohmann::json wall = nlohmann::json::object(), in = nlohmann::json::object();
  double wall_sum = 0, computing_sum = 0, member_sum = 0;
  for (const auto& n : nodes) {
    if (!n.contains("compute_s") || !n["compute_s"].is_number()) continue;
    const double computing = n["compute_s"].get<double>();
    const double member = n.value("time_in_s", 0.0);
    const std::string name = n.value("node", "");
    const double u = wall_s > 0 ? std::min(1.0, computing / wall_s) : 0.0;
    wall[name] = u;
    wall_sum += u;
    if (member > 0) {
      in[name] = {{"member_s", member}, {"utilization", std::min(1.0, computing / member)}};
      computing_sum += computing;
      member_sum += member;
    }
  }
  if (wall.empty()) return;
  s["compute_utilization"] = {{"mean", wall_sum / static_cast<double>(wall.size())},
                              {"per_worker", wall}};
  s["compute_utilization_of_member_time"] = {
      {"mean", member_sum > 0 ? std::min(1.0, computing_sum / member_sum) : 0.0},
      {"member_s", member_sum},
      {"per_worker", in}};
}

}  // namespace

nlohmann::json launch_summary(const LaunchRequest& request, const std::vector<RankPlan>& ranks,
                              const JobOutcome& outcome, nlohmann::json metrics,
                              const std::map<std::string, uint64_t>& wan_bytes) {
  nlohmann::json s;
  s["kind"] = "launch";
  s["lab"] = request.lab;
  s["strategy"] = request.job;  // the key every run summary is listed and drawn by
  s["job"] = request.job;
  s["command"] = request.command;
  s["run_dir"] = request.run_dir;
  s["world_size"] = ranks.size();
  s["master"] =
      ranks.empty() ? "" : ranks.front().address + ":" + std::to_string(request.master_port);
  s["status"] = outcome.status;
  s["wall_s"] = outcome.wall_s;
  // Per node: where it ran and how it ended, beside what it reported.
  nlohmann::json nodes = metrics.contains("nodes") ? metrics["nodes"] : nlohmann::json::array();
  for (size_t i = 0; i < ranks.size() && i < outcome.ranks.size(); ++i) {
    if (i >= nodes.size()) nodes.push_back(nlohmann::json::object());
    auto& n = nodes[i];
    n["node"] = ranks[i].node;
    n["rank"] = ranks[i].rank;
    n["address"] = ranks[i].address;
    if (!ranks[i].host.empty()) n["host"] = ranks[i].host;
    n["pid"] = outcome.ranks[i].pid;
    n["exit_status"] = outcome.ranks[i].status;
    n["stopped_by_testbed"] = outcome.ranks[i].stopped;
    n["ended_s"] = outcome.ranks[i].ended_s;
    // Faults of the node (a crash, then perhaps a restart: node_faults.h).
    n["crashes"] = outcome.ranks[i].crashes;
    n["restarts"] = outcome.ranks[i].earlier_pids.size();
    n["crashed"] = outcome.ranks[i].crashed;
    // Its node's leaves and joins (rank_membership.h), and its time in: its runs' time.
    n["leaves"] = outcome.ranks[i].leaves;
    n["joins"] = outcome.ranks[i].joins;
    n["ended_outside"] = outcome.ranks[i].outside;
    n["time_in_s"] = outcome.ranks[i].running_s;
  }
  metrics.erase("nodes");
  add_compute_utilization(s, nodes, outcome.wall_s);
  s["nodes"] = nodes;
  for (auto& [key, value] : metrics.items()) s[key] = value;
  if (outcome.failed_rank >= 0) {
    s["failed_node"] = ranks.at(outcome.failed_rank).node;
    s["failed_out_of_memory"] = outcome.ranks.at(outcome.failed_rank).out_of_memory;
  }
  uint64_t wan = 0;
  nlohmann::json per_direction = nlohmann::json::object();
  for (const auto& [key, bytes] : wan_bytes) {
    wan += bytes;
    per_direction[key] = bytes;
  }
  s["wan_bytes"] = wan;
  s["wan_bytes_per_direction"] = per_direction;
  // Where the testbed had to choose for the job, said where the figures are.
  s["choices"] = {
      {"iteration_time",
       "a line's 'seconds' when given, else the time since the node's previous iteration "
       "line (or since the launch), as the controller read it (files are polled every 50 ms)"},
      {"loss_curve",
       "the mean of the latest losses of the nodes that report one, from when each has "
       "reported once; t counts from the launch"},
      {"wan_bytes",
       "bytes sent on every link direction of the lab while the job ran, all "
       "traffic included, from the kernel's TBF counters"}};
  return s;
}

std::vector<std::string> failure_lines(const std::vector<RankPlan>& ranks,
                                       const JobOutcome& outcome, double max_seconds) {
  std::vector<std::string> lines;
  if (outcome.status == "failed" && outcome.failed_rank >= 0) {
    const auto& r = ranks.at(outcome.failed_rank);
    const auto& o = outcome.ranks.at(outcome.failed_rank);
    std::ostringstream head;
    head << "node " << r.node << " (rank " << r.rank << ")"
         << (r.host.empty() ? "" : " on host " + r.host) << " ";
    if (o.out_of_memory) {
      head << "was killed by its node's memory limit (the kernel's OOM killer) after " << std::fixed
           << std::setprecision(1) << o.ended_s << " s";
    } else if (o.crashed) {
      head << "was crashed by a fault of the node after " << std::fixed << std::setprecision(1)
           << o.ended_s << " s and not restarted before the others ended";
    } else if (o.status < 0) {
      head << "never reported how it ended";
    } else {
      head << "exited with " << describe_status(o.status) << " after " << std::fixed
           << std::setprecision(1) << o.ended_s << " s";
    }
    lines.push_back(head.str());
    if (!o.stderr_tail.empty()) {
      lines.push_back("last lines of its stderr (" +
                      (r.host.empty() ? "" : "host " + r.host + ":") + r.stderr_path + "):");
      for (const auto& l : o.stderr_tail) lines.push_back("  " + l);
    }
  } else if (outcome.status == "timed_out") {
    std::ostringstream head;
    head << "stopped after --max-seconds " << max_seconds;
    lines.push_back(head.str());
  } else if (outcome.status == "interrupted") {
    lines.push_back("interrupted");
  } else {
    return lines;
  }
  size_t stopped = 0;
  for (const auto& o : outcome.ranks) stopped += o.stopped ? 1 : 0;
  if (stopped > 0)
    lines.push_back("stopped " + std::string(outcome.status == "failed" ? "the other " : "") +
                    std::to_string(stopped) + " node(s); nothing is left running");
  return lines;
}

}  // namespace testbed
