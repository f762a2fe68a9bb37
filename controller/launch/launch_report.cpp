#include "controller/launch/launch_report.h"

#include <string.h>

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
  }
  metrics.erase("nodes");
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
       "traffic included, from the kernel's HTB counters"}};
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
