#include "controller/runs/training_run.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>
#include <zmq.hpp>

#include "controller/dynamics/link_control.h"
#include "controller/health/stall_watch.h"
#include "controller/lab/teardown.h"
#include "controller/observe/cross_traffic_share.h"
#include "controller/observe/job_accounting.h"
#include "controller/observe/metrics_sink.h"
#include "controller/observe/node_compute_status.h"
#include "controller/observe/peer_refusals.h"
#include "controller/runs/child_process.h"
#include "controller/runs/ps/ps_session.h"
#include "controller/runs/ps_run_policies.h"
#include "controller/runs/run_health.h"
#include "controller/runs/tree/train_session.h"
#include "controller/topology/comma_list.h"
#include "controller/topology/units.h"
#include "controller/training/agent_group.h"
#include "controller/training/host_channel_keys.h"
#include "netns/libnl_kernel.h"
#include "netns/netns_exec.h"
#include "netns/process_exit.h"
#include "netns/tcp_queues.h"

namespace testbed {
namespace {

constexpr int kAgentPort = 7100;  // each agent's ROUTER, on its node's own address
// A run stalled this long fails, naming what stalls it: the agents' own limit on waiting
// for an iteration's data (tree_protocol.cpp), so the controller's message, naming the
// links, comes first.
constexpr double kStallLimitS = 295;

// Stops the agents of a run and forgets them; `down` would end them too. They are our
// children: reap them, so none lingers as a zombie.
void stop_agents(AgentGroup& agents, const std::vector<pid_t>& pids, LabStore& store,
                 const std::string& lab) {
  agents.broadcast({{"cmd", "quit"}});
  agents.release_hosts();  // their `testbed agents` give theirs the same grace
  // All were told at once: one grace for all, from the telling.
  const auto deadline = std::chrono::steady_clock::now() + kQuitGrace;
  for (pid_t pid : pids) {
    if (pid <= 0) continue;  // on another host
    ProcessHandle::open(pid).wait_until(deadline);
    reap_if_ended(pid);
  }
  forget_processes(store, lab, {pids.begin(), pids.end()}, [](const ProcessRecord& p) {
    if (process_start_time(p.pid) == p.start_time) {  // did not quit in time
      std::cerr << "testbed train: the agent of node " << p.node << " did not quit within "
                << kQuitGrace.count() << " s of being told; killed\n";
      kill(p.pid, SIGKILL);
      reap(p.pid);
    }
  });
}

std::string write_run(const std::string& dir, const std::string& strategy,
                      const nlohmann::json& summary) {
  std::filesystem::create_directories(dir + "/runs");
  const std::string results = dir + "/runs/" + now_iso8601() + "-" + strategy + ".json";
  std::ofstream(results) << summary.dump(1) << "\n";
  return results;
}

// Written first, so a failed check leaves the figures to look at.
void check_reference(const nlohmann::json& summary) {
  if (summary.value("reference_max_abs_diff", 0.0) > kReferenceTolerance) {
    throw std::runtime_error("the model differs from the single-process reference by " +
                             std::to_string(summary["reference_max_abs_diff"].get<double>()));
  }
}

// The control port for the other hosts: CURVE with this host's key, admitting the
// placement's other hosts (agent_group.h, host_channel_keys.h).
void listen_for_hosts(AgentGroup& agents, const LabStore& store, const LabState& state,
                      const std::string& endpoint, const std::vector<bool>& remote,
                      const Plan& lab_plan) {
  HostChannelKeys keys;
  try {
    keys = host_channel_keys(store, state);
  } catch (const HostKeysError& e) {
    throw UsageError(e.what());
  }
  std::vector<std::string> host_of;
  for (const auto& n : lab_plan.nodes) host_of.push_back(keys.host_of_node[n.name]);
  agents.listen_for_hosts(endpoint, remote, keys.own, std::move(keys.admitted), std::move(host_of));
}

// The lab's nodes as a run sees them: every node, on a slice of a lab spread over hosts too
// (docs/multihost.md): this host's nodes get their agents here, the others' from their
// hosts' `testbed agents`.
struct LabNodes {
  Plan plan;                   // the whole lab's
  std::set<std::string> here;  // this host's namespaces
  std::vector<std::string> names, namespaces, endpoints, addresses;
  std::vector<bool> remote;            // per node: on another host
  std::vector<std::string> elsewhere;  // the names of those
};

LabNodes lab_nodes(const LabStore& store, const LabState& state) {
  LabNodes nodes;
  nodes.plan = store.load_whole_plan(state);
  nodes.here = plan_namespaces(state.plan);
  for (const auto& n : nodes.plan.nodes) {
    nodes.names.push_back(n.name);
    nodes.addresses.push_back(n.address.str());
    nodes.namespaces.push_back(n.ns);
    nodes.endpoints.push_back("tcp://" + n.address.str() + ":" + std::to_string(kAgentPort));
    nodes.remote.push_back(nodes.here.count(n.ns) == 0);
    if (nodes.remote.back()) nodes.elsewhere.push_back(n.name);
  }
  return nodes;
}

// What the lab contradicts is refused before any agent starts: a lab over hosts without an
// address for them (or one on one host with it), unknown servers and workers, a role the
// strategy's checks refuse.
void check_before_agents(const TrainOptions& o, const std::string& lab, const LabState& state,
                         const LabNodes& nodes, const std::vector<LiveDirection>& directions) {
  if (!nodes.elsewhere.empty() && o.agents_listen.empty())
    throw UsageError("lab " + lab + " is host " + state.host + "'s slice; nodes " +
                     comma_list(nodes.elsewhere) +
                     " are on other hosts: give --agents-listen ADDR:PORT, an address of this "
                     "host the others reach, and run `testbed agents " +
                     lab + " --control tcp://ADDR:PORT` on each of them");
  if (nodes.elsewhere.empty() && !o.agents_listen.empty())
    throw UsageError("--agents-listen is for a lab spread over hosts; every node of lab " + lab +
                     " is on this host");
  if (o.ps) {
    // With a placement, the servers are the placement's, decided later.
    std::vector<int> servers;
    if (!o.placement) servers = resolve_servers(o.servers, nodes.names, directions);
    const auto workers = resolve_workers(o.worker_nodes, nodes.names);
    if (!o.placement)
      for (const PsRunCheck check : ps_run_checks()) check(o, nodes.names, servers, workers);
  }
  if (!o.server.empty() &&
      std::find(nodes.names.begin(), nodes.names.end(), o.server) == nodes.names.end())
    throw UsageError("--server: lab " + lab + " has no node named '" + o.server + "'");
}

// This host's agents, one in each of its nodes' namespaces, each recorded before it runs
// and ended by the kernel if the train is killed outright (kAgentParentDied; `clean` and
// the next job on the lab forget their records). A node on another host gets pid 0:
// its host starts and watches it (remote_hosts.h).
std::vector<pid_t> start_agents(LabStore& store, const std::string& lab, const LabNodes& nodes,
                                const std::string& socket_path) {
  const std::string dir = store.dir(lab);
  std::vector<pid_t> pids;
  auto lock = store.lock(lab, /*wait=*/true);
  LabState state = store.load(lab);
  for (size_t n = 0; n < nodes.names.size(); ++n) {
    if (nodes.remote[n]) {
      pids.push_back(0);
      continue;
    }
    const std::vector<std::string> cmd = {program_path("testbed-agent"),
                                          "--control",
                                          "ipc://" + socket_path,
                                          "--node",
                                          std::to_string(n),
                                          "--nodes",
                                          std::to_string(nodes.names.size()),
                                          "--lab-dir",
                                          dir};
    pids.push_back(spawn_in_netns(
        nodes.namespaces[n], cmd, dir + "/agent-" + nodes.names[n] + ".log",
        [&](pid_t p) {
          state.processes.push_back(owned_by_me({p, process_start_time(p), nodes.names[n], cmd}));
          store.record_process(lab, state.processes.back());
        },
        kAgentParentDied));
  }
  store.save(state);
  return pids;
}

// What a run measured beside its figures, added to its summary at the end: the cross
// traffic's and the job's own bytes, the emulation's health (over hosts, every host's that
// answered), the lab's fit, stalls and the nodes' compute; then the summary written,
// checked against the reference, and printed (--json) or said in one line.
struct RunWitnesses {
  const TrainOptions& o;
  const std::string& dir;
  const LabState& state;
  const LabNodes& nodes;
  AgentGroup& agents;
  std::optional<JobAccounting>& job;
  CrossTrafficWatch& cross;
  HealthMonitor& health;
  ZmqMetricsSink& metrics;
  const StallWatch& stalls;
  const ComputeMeter& compute;
  bool van_curve = false;

  void publish(nlohmann::json& summary, const std::string& headline) const {
    if (auto c = cross.summary(); !c.is_null()) summary["cross_traffic"] = std::move(c);
    if (job) summary["job_traffic"] = job->summary();
    // Over hosts, each host's kernel sees the links its own nodes send on: the others
    // report theirs' health (and, to a parameter-server run, their counters: ps_session),
    // so that the figures are the whole lab's. A host that does not answer is named.
    std::map<std::string, HealthReport> health_elsewhere;
    std::vector<std::string> reported, unreported;
    if (!nodes.elsewhere.empty()) {
      const auto figures = agents.host_figures(true, kHostFiguresWait);
      for (const auto& host : agents.other_hosts()) {
        const auto it = figures.find(host);
        if (it != figures.end() && it->second.health) {
          health_elsewhere[host] = *it->second.health;
          reported.push_back(host);
        } else {
          unreported.push_back(host);
        }
      }
    }
    finish_run_health(health, summary, o.strategy, metrics, state.host, health_elsewhere);
    if (!nodes.elsewhere.empty()) {
      summary["hosts"] = {
          {"controller_host", state.host},
          {"nodes_elsewhere", nodes.elsewhere},
          {"links_measured",
           unreported.empty() ? "every host's" : "this host's and links_reported_by's"},
          {"links_reported_by", reported},
          {"links_not_reported_by", unreported},
          {"control_channel", "CURVE, the placement's host keys"},
          {"refused_connections", agents.refused_connections()},
          {"spoofed_messages", agents.spoofed_messages()},
          {"malformed_replies", agents.malformed_replies()}};
    }
    summary["van_security"] = van_curve ? "curve" : "plain";
    // The lab's fit (controller/lab/fit): what its rates and this run's model were scaled by.
    if (!state.plan.fit.is_null()) {
      summary["fit"] = state.plan.fit;
      summary["fit"]["model_factor"] = o.fit_factor;
    }
    summary["stalls"] = stalls.to_json();
    if (compute.active()) summary["compute"] = compute.summary();
    add_compute_notes(summary);
    if (summary.contains("peers"))
      metrics.publish(peers_event(summary["peers"], nodes.names, o.strategy));
    const std::string results = write_run(dir, o.strategy, summary);
    check_reference(summary);
    const std::string scope = unreported.empty()
                                  ? ""
                                  : " (WAN bytes and health without host " +
                                        comma_list(unreported) + "'s links: no answer)";
    const std::string fitted = o.fit_factor < 1 ? " (fitted to this machine: rates and model x" +
                                                      format_factor(o.fit_factor) + ")"
                                                : "";
    std::cout << (o.json ? summary.dump() : headline + fitted + scope + "; results in " + results)
              << "\n";
  }
};

// The tree strategies' session: the probe, then the iterations (or the probe alone).
void train_tree(const TrainOptions& o, const std::string& lab, const std::string& dir,
                AgentGroup& agents, const LabNodes& nodes,
                const std::vector<LiveDirection>& directions, std::ostream& progress,
                ZmqMetricsSink& metrics, const RunWitnesses& witnesses) {
  TrainSession session(o, agents, nodes.names, nodes.endpoints, directions, progress, metrics);
  session.setup();
  session.measure();
  if (o.probe_only) {
    std::cout << nlohmann::json{{"lab", lab},
                                {"link_mbit", session.graph().mbit},
                                {"nodes", nodes.names}}
                     .dump()
              << "\n";
    return;
  }
  session.train();
  nlohmann::json summary = session.summary(lab);
  if (std::ifstream start(dir + "/timeline-start"); start) {
    double t = 0;
    if (start >> t) summary["timeline_started_unix_s"] = t;
  }
  std::ostringstream headline;
  headline << o.strategy << ": " << o.iterations << " iterations of " << o.model.name << " x"
           << format_factor(o.scale) << std::fixed << " (" << std::setprecision(1)
           << static_cast<double>(o.elements) * 4 / 1e6 << " MB), mean " << std::setprecision(2)
           << session.mean_iteration_s() << " s per iteration, " << std::setprecision(1)
           << session.samples_per_s() << " samples/s";
  witnesses.publish(summary, headline.str());
}

}  // namespace

bool run_training(LabStore& store, const std::string& lab, LabState state, TrainOptions o,
                  const StopSignals& stop) {
  const std::string dir = store.dir(lab);
  o.store_dir = dir + "/store";  // inside the lab's directory: removed with the lab
  const LabNodes nodes = lab_nodes(store, state);
  // The links as they are now; only this host's ends are read or changed here.
  const auto directions = [&] {
    auto d = live_directions(nodes.plan, read_current(dir));
    for (auto& x : d) {
      x.local_tx = nodes.here.count(x.ns) > 0;
      x.local_rx = nodes.here.count(x.rx_ns) > 0;
    }
    return d;
  };
  std::ostream& progress = o.json ? std::cerr : std::cout;
  check_before_agents(o, lab, state, nodes, directions());
  const bool over_hosts = !nodes.elsewhere.empty();

  // This job's own bytes on each link, apart from any other job's (docs/jobs.md); on one
  // box only: the other hosts' agents are not this host's to mark. One train per lab at a
  // time (its agents hold the lab's agent port and socket); launches may run beside it.
  IptablesJobMarks job_marks;
  std::optional<JobAccounting> job;
  try {
    if (!over_hosts) job.emplace(store, lab, directions(), "train", o.strategy, job_marks);
  } catch (const JobRefused& e) {
    throw UsageError(e.what());
  }
  zmq::context_t ctx;
  const std::string socket_path = dir + "/agents.sock";
  AgentGroup agents(ctx, socket_path, nodes.names);
  if (over_hosts) listen_for_hosts(agents, store, state, o.agents_listen, nodes.remote, nodes.plan);
  const bool van_curve = o.van_security == "curve" || (o.van_security.empty() && over_hosts);
  agents.use_van_curve(van_curve);
  if (over_hosts && !van_curve)
    progress << "warning: --van-security plain over hosts: the run's secret and its model "
                "traffic cross the hosts' network in clear\n";
  // Clocks past the run's iterations are not the run's (agent_reply.h); twice them leaves
  // room for any protocol's count past its last clock (an evaluation's, a final pull's).
  if (o.iterations > 0) agents.set_clock_bound(2 * static_cast<uint64_t>(o.iterations) + 2);
  const std::vector<pid_t> pids = start_agents(store, lab, nodes, socket_path);
  state = store.load(lab);
  agents.set_pids(pids);
  // A train ended by SIGINT or SIGTERM (Ctrl-C, a CI job's timeout) takes its agents with
  // it: the signal ends the wait it comes in (Interrupted), and the agents are stopped and
  // reaped below as after any failure; the verb then dies of the signal (cmd_train.cpp).
  agents.set_stop(&stop);
  // Stalls: reported when they begin, in the summary, and fatal after kStallLimitS; with
  // --max-seconds the sessions end a stalled run at its budget (agent_group.h).
  StallWatch watch(
      nodes.names, nodes.addresses, kAgentPort,
      [&](size_t n) {
        // An agent on another host: its sockets are not in this kernel.
        return pids.at(n) ? read_tcp_queues(pids.at(n)) : std::vector<TcpQueue>{};
      },
      std::chrono::steady_clock::now());
  agents.set_stall_check([&] {
    // Refused connections on the port the other hosts reach, named as the gate saw them.
    for (const auto& why : agents.take_refusals()) progress << "refused " << why << "\n";
    if (const auto begun = watch.poll(std::chrono::steady_clock::now()))
      progress << "stall: " << describe(begun->pairs) << "\n" << std::flush;
    const StallEpisode* now = watch.current();
    if (now && now->seconds >= kStallLimitS)
      throw std::runtime_error("stalled for " + std::to_string(static_cast<int>(now->seconds)) +
                               " s: " + describe(now->pairs));
    return now != nullptr;
  });
  bool ok = true;
  try {
    if (over_hosts)
      progress << "waiting for the agents of " << comma_list(agents.awaited_nodes())
               << " on other hosts: run `testbed agents " << lab << " --control " << o.agents_listen
               << "` on each\n"
               << std::flush;
    agents.gather("hello");
    ZmqMetricsSink metrics(ctx, metrics_socket(dir));
    const auto health = start_run_health(ctx, dir, state.plan, o.strategy);
    // Each node's CPU time and throttling (compute.md); shared with the death cause below,
    // which the agent group may ask after this scope has ended.
    const auto compute = std::make_shared<const ComputeMeter>(state);
    // An agent the kernel killed for its node's memory limit is named as such, not as a
    // death of unknown cause.
    agents.set_death_cause([compute, names = nodes.names](size_t n) {
      return compute->memory_limit_killed(names[n]) ? "killed by its node's memory limit" : "";
    });
    // What the lab's cross traffic took of its links meanwhile (cross_traffic_share.h).
    LibnlKernel counters;
    CrossTrafficWatch cross(state.plan, directions(), dir, state.time_scale, counters);
    const RunWitnesses witnesses{o,     dir,     state,   nodes, agents,   job,
                                 cross, *health, metrics, watch, *compute, van_curve};
    if (o.ps) {
      LibnlKernel kernel;  // reads the lab's link counters: WAN bytes
      PsSession ps(o, agents, nodes.names, nodes.endpoints, directions(), progress, metrics, kernel,
                   ps_run_policies());
      ps.set_rate_source([&] { return directions(); });
      ps.set_lab_dir(dir);  // a failover reads the dead server's crash record there
      ps.setup();
      ps.train();
      nlohmann::json summary = ps.summary(lab);
      witnesses.publish(summary, ps.headline());
    } else {
      train_tree(o, lab, dir, agents, nodes, directions(), progress, metrics, witnesses);
    }
  } catch (const std::exception& e) {
    std::cerr << "testbed train: " << e.what() << "\n";
    ok = false;
  }
  agents.set_stop(nullptr);  // the stop's own waits must not be interrupted
  stop_agents(agents, pids, store, lab);
  return ok;
}

}  // namespace testbed
