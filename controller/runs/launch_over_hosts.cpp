#include "controller/runs/launch_over_hosts.h"

#include <optional>

#include "controller/launch/host_outcomes.h"
#include "controller/launch/runner_thread.h"

namespace testbed {
namespace {

// How often the port is read while the ranks run: a failure elsewhere stops this host's
// ranks within a tenth of a second of its report.
constexpr auto kTick = std::chrono::milliseconds(100);

std::string comma_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

JobOutcome launch_over_hosts(zmq::context_t& context, const OverHosts& setup, JobRunner* runner,
                             const std::vector<int>& local_ranks, size_t world_size,
                             HostsLaunch::OnLine on_line, const std::atomic<int>& signal,
                             std::ostream& progress, nlohmann::json& hosts_summary,
                             LinksElsewhere& elsewhere) {
  HostsLaunch hosts(context,
                    {setup.endpoint, setup.keys.own, setup.keys.admitted, setup.ranks_of_host,
                     setup.command, static_cast<int>(world_size)},
                    std::move(on_line));
  const auto name_refusals = [&] {
    for (const auto& r : hosts.take_refusals()) progress << "warning: " << r << "\n";
  };
  std::vector<std::string> others;
  for (const auto& [host, ranks] : setup.ranks_of_host) others.push_back(host);
  progress << "waiting for `testbed agents " << setup.lab << " --control " << setup.endpoint
           << "` on " << comma_list(others) << "\n"
           << std::flush;
  bool interrupted = false;
  // Every host has its ranks before this host's start: a rendezvous waits for all anyway,
  // and a host that never comes fails the job before anything runs here.
  while (!hosts.all_started() && hosts.failure().empty() && !signal) {
    hosts.poll(kTick);
    name_refusals();
  }
  std::optional<RunnerThread> local;
  std::optional<JobOutcome> local_outcome;
  bool stopped = false;
  const auto stop_everything = [&] {
    if (stopped) return;
    stopped = true;
    hosts.stop();
    if (local) local->stop(SIGTERM);
  };
  if (!hosts.all_started()) {
    interrupted = signal != 0;
    stop_everything();
  } else if (runner) {
    local.emplace(*runner);
  }
  if (!local) local_outcome = JobOutcome{"completed", -1, 0, {}};
  std::string failed_host;
  int failed_rank = -1;
  for (;;) {
    hosts.poll(kTick);
    name_refusals();
    if (!hosts.failure().empty() && !stopped && failed_host.empty() &&
        (!local_outcome || local_outcome->status == "completed")) {
      progress << "testbed launch: " << hosts.failure() << "; stopping the job everywhere\n";
      failed_host = hosts.failed_host();
      failed_rank = hosts.failed_rank();
      stop_everything();
    }
    if (signal && !stopped) {
      interrupted = true;
      stop_everything();
    }
    if (local && !local_outcome && local->done()) {
      try {
        local_outcome = local->take();
      } catch (...) {
        hosts.stop();
        hosts.quit();
        throw;
      }
      if (local_outcome->status != "completed") {
        stopped = true;  // this host's ranks are over: only the others are to stop
        hosts.stop();
      }
    }
    if (local_outcome && hosts.all_done()) break;
  }
  hosts.quit();
  HostsPart part{setup.ranks_of_host, hosts.outcomes(), hosts.lost(), failed_host, failed_rank};
  // A host that failed before it started anything here.
  if (part.failed_host.empty() && !hosts.failed_host().empty() && !interrupted &&
      local_outcome->status == "completed")
    part.failed_host = hosts.failed_host(), part.failed_rank = hosts.failed_rank();
  JobOutcome job = merge_host_outcomes(world_size, local_ranks, *local_outcome, part,
                                       interrupted && failed_host.empty());
  hosts_summary["other_hosts"] = setup.ranks_of_host;
  hosts_summary["control_channel"] = "CURVE, the placement's host keys";
  hosts_summary["refused_connections"] = hosts.refused_connections();
  hosts_summary["malformed_messages"] = hosts.malformed();
  hosts_summary["dropped_lines"] = hosts.dropped_lines();
  std::vector<std::string> measured;
  for (const auto& [host, d] : hosts.outcomes()) {
    for (const auto& [direction, bytes] : d.wan_bytes) elsewhere.wan_bytes[direction] += bytes;
    if (d.health) elsewhere.health[host] = *d.health;
    measured.push_back(host);
  }
  hosts_summary["links_reported_by"] = measured;
  nlohmann::json lost = nlohmann::json::object();
  for (const auto& [host, why] : hosts.lost()) lost[host] = why;
  hosts_summary["lost"] = lost;
  return job;
}

}  // namespace testbed
