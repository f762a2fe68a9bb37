#include "controller/runs/lab_processes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>

#include "controller/dynamics/link_control.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/node_hosts.h"
#include "controller/lab/teardown.h"
#include "controller/runs/child_process.h"
#include "netns/cpu_allowance.h"
#include "netns/crash_point.h"
#include "netns/named_netns.h"
#include "netns/node_cgroup.h"
#include "netns/node_identity.h"

namespace testbed {
namespace {

// The last non-empty line of a process's log, or a note that it wrote none.
std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last.empty() ? "its log " + path + " is empty" : "its log ends \"" + last + "\"";
}

// ":ge=P,R,BAD,GOOD" of a delay line's --queue: the probabilities printed exactly (%.17g
// parses back to the same double).
std::string burst_spec(const GilbertElliott& m) {
  char buf[160];
  std::snprintf(buf, sizeof buf, ":ge=%.17g,%.17g,%.17g,%.17g", m.p, m.r, m.bad_loss, m.good_loss);
  return buf;
}

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

// Starts the lab's long-lived processes, recording each before anything can fail: the
// delay lines of the nodes that receive delayed links, and the timeline when there are
// schedules. Waits until every delay line has bound its queues.
void start_processes(const Plan& plan, const LabStore& store, LabState& state) {
  const std::string dir = store.dir(plan.lab);
  struct Waiting {
    pid_t pid;
    std::string socket, log;
  };
  std::vector<Waiting> waiting;
  const auto groups =
      delay_line_groups(plan.delay_lines, delay_line_processes(read_cpu_allowance()));
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<std::string> argv = {program_path("testbed-delayline")};
    for (const PlannedDelayLine* line : groups[g]) {
      // Each node's queues are bound inside its namespace by the process, which itself runs
      // in the host's: one process serves many namespaces.
      argv.insert(argv.end(), {"--control", delay_line_socket(dir, line->node), "--netns",
                               netns_path(line->ns)});
      for (const auto& q : line->queues) {
        argv.push_back("--queue");
        argv.push_back(std::to_string(q.num) + ":" + std::to_string(q.delay_us) + ":" +
                       std::to_string(q.jitter_us) + ":" + std::to_string(q.seed) +
                       (q.reorder ? ":reorder" : "") + (q.burst ? burst_spec(*q.burst) : ""));
      }
    }
    if (plan.release_window_us) {
      argv.push_back("--release-window-us");
      argv.push_back(std::to_string(*plan.release_window_us));
    }
    // A process of one node is named after it (its log, and the node in its record).
    const bool one = groups[g].size() == 1;
    const std::string name = one ? groups[g].front()->node : "group" + std::to_string(g);
    const std::string log = dir + "/delayline-" + name + ".log";
    const pid_t pid =
        spawn_recorded(store, state, "", argv, log, one ? groups[g].front()->node : "");
    for (const PlannedDelayLine* line : groups[g])
      waiting.push_back({pid, delay_line_socket(dir, line->node), log});
  }
  // A delay line binds its queues, then its control socket: the socket means ready. It
  // enters each of its namespaces to bind there, so the wait grows with the most any one
  // process serves (5000 each of a 10,000-leaf star's on two cores): five seconds, far
  // beyond what a few take even on a loaded host, and 5 ms more per namespace.
  size_t most = 0;
  for (const auto& g : groups) most = std::max(most, g.size());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5) +
                        std::chrono::milliseconds(5) * most;
  for (const auto& w : waiting) {
    while (!std::filesystem::exists(w.socket)) {
      const bool ended = process_start_time(w.pid) == 0;
      if (ended || std::chrono::steady_clock::now() > deadline) {
        // Its log's last line is in the error: the rollback removes the log with the lab.
        throw std::runtime_error("the delay line (pid " + std::to_string(w.pid) + ") " +
                                 (ended ? "ended before it was ready" : "was not ready in time") +
                                 ": " + last_line_of(w.log));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  if (plan.has_schedules) {
    const std::vector<std::string> argv = {program_path("testbed"), "_timeline", plan.lab};
    spawn_recorded(store, state, "", argv, dir + "/timeline.log");
  }
  start_cross_traffic(plan, store, state);
}

// The generators of the plan's cross traffic whose ends are this host's nodes: each
// entry's iperf3 server in its receiving node, and in its sending node a `testbed _traffic`
// that runs the client from start to stop on the lab's clock (the schedules' time zero,
// its times scaled as theirs are).
void start_cross_traffic(const Plan& plan, const LabStore& store, LabState& state) {
  if (plan.traffic.empty()) return;
  const std::string dir = store.dir(plan.lab);
  const double zero =
      state.start_at_unix_s > 0 ? state.start_at_unix_s : unix_now_s() - lab_time_s(dir);
  const double scale = state.time_scale > 0 ? state.time_scale : 1.0;
  std::set<std::string> here;
  for (const auto& n : plan.nodes) here.insert(n.name);
  for (const PlannedTraffic& t : plan.traffic) {
    const std::string name = dir + "/traffic-" + std::to_string(t.index);
    if (here.count(t.to))
      spawn_recorded(store, state, t.to_ns, traffic_server_argv(t, program_path("testbed")),
                     name + "-server.log", t.to);
  }
  for (const PlannedTraffic& t : plan.traffic) {
    if (!here.count(t.from)) continue;
    char start[32], stop[32] = "-";
    std::snprintf(start, sizeof start, "%.6f", zero + scale * t.start_us / 1e6);
    if (t.stop_us) std::snprintf(stop, sizeof stop, "%.6f", zero + scale * *t.stop_us / 1e6);
    std::vector<std::string> argv = {program_path("testbed"), "_traffic", start, stop};
    const auto client = traffic_client_argv(t, program_path("testbed"));
    argv.insert(argv.end(), client.begin(), client.end());
    spawn_recorded(store, state, t.from_ns, argv,
                   dir + "/traffic-" + std::to_string(t.index) + "-client.log", t.from);
  }
}

// Gives every node a hostname and the lab's hosts file (node_identity.h), recording them
// all before creating any, so a controller killed mid-way leaves them to `clean`.
void create_identities(const Plan& plan, const Plan& lab, const LabStore& store, LabState& state) {
  for (const auto& n : plan.nodes) state.identities.push_back({n.name, n.ns, 0});
  store.save(state);
  const std::string hosts = node_hosts_text(lab);
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    state.identities[i].uts_inode = create_uts_namespace(plan.nodes[i].ns, plan.nodes[i].name);
    // One file, written once and linked into every other node's place: the text is the
    // same for all (node_hosts.h).
    if (i == 0) {
      write_hosts_file(plan.nodes[i].ns, hosts);
    } else {
      link_hosts_file(plan.nodes[i].ns, plan.nodes[0].ns);
    }
  }
  store.save(state);
}

// Every node's control group (netns/node_cgroup.h), limited or not, so that every data
// center's CPU time and memory are measured the same way (the dashboards' compute panels,
// `status`, a run's compute notes) whether or not it has a limit. A group without limits
// holds nothing back. A host with no cgroup hierarchy at all (a container without one) gets
// none when no node asks for a limit: the compute panels then stay empty, as their
// descriptions say. Every group is recorded, in one save, before the first is made.
void create_node_cgroups(const Plan& plan, const LabStore& store, LabState& state) {
  const auto limited = [](const PlannedNode& n) {
    return n.compute.any() || std::any_of(n.events.begin(), n.events.end(), [](const NodeEvent& e) {
             return e.kind == NodeEvent::Kind::kCpus;
           });
  };
  const bool any_limited = std::any_of(plan.nodes.begin(), plan.nodes.end(), limited);
  std::optional<CgroupLayout> layout;
  try {
    layout = host_cgroup_layout();
  } catch (const std::exception&) {
    if (any_limited) throw;
    return;
  }
  for (const auto& n : plan.nodes) {
    const auto dirs = node_cgroup_dirs(*layout, n.ns, n.compute);
    state.cgroups.insert(state.cgroups.end(), dirs.begin(), dirs.end());
  }
  store.save(state);
  crash_point("cgroup:recorded, not made");
  for (const auto& n : plan.nodes) {
    try {
      create_node_cgroup(*layout, n.ns, n.compute);
    } catch (const std::exception& e) {
      throw std::runtime_error("node " + n.name + ": its compute (cgroup " + version_name(*layout) +
                               "): " + e.what());
    }
    crash_point("cgroup:made");
  }
}

}  // namespace testbed
