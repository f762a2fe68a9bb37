#include "controller/runs/launch_run.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <set>
#include <zmq.hpp>

#include "controller/dynamics/link_control.h"
#include "controller/lab/lab_state.h"
#include "controller/launch/job_metrics.h"
#include "controller/launch/job_runner.h"
#include "controller/launch/lab_rank_faults.h"
#include "controller/launch/launch_plan.h"
#include "controller/launch/launch_report.h"
#include "controller/launch/rank_records.h"
#include "controller/observe/cross_traffic_share.h"
#include "controller/observe/job_accounting.h"
#include "controller/observe/link_metrics.h"
#include "controller/observe/metrics_sink.h"
#include "controller/observe/node_compute_status.h"
#include "controller/options/usage_error.h"
#include "controller/runs/child_process.h"
#include "controller/runs/launch_over_hosts.h"
#include "controller/runs/run_health.h"
#include "controller/topology/port_number.h"
#include "netns/ipv4.h"
#include "netns/libnl_kernel.h"
#include "netns/process_launcher.h"

namespace testbed {
namespace {

// A launch resolved against its lab, before any rank starts: where its results go, its
// ranks here and on other hosts, and its own share of the lab's links. Filled in place
// (the job's accounting holds on to its marks).
struct PreparedLaunch {
  LabStore store;
  LaunchRequest request;
  LabState state;
  std::string dir, stamp;
  std::vector<LiveDirection> directions;
  IptablesJobMarks job_marks;
  std::optional<JobAccounting> job;  // on one host: its bytes apart from other jobs'
  std::vector<RankPlan> ranks, local;
  std::vector<int> local_ranks;  // the numbers of `local`
  std::optional<OverHosts> over_hosts;
};

// The lab, up; the results' directory, named by time as runs/ are (a second launch within
// the same second gets a suffix).
void resolve_lab(PreparedLaunch& p, const LaunchOptions& o) {
  try {
    p.request.lab = p.store.resolve(o.lab);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  if (!p.store.has_state(p.request.lab)) throw UsageError("no lab named '" + p.request.lab + "'");
  p.dir = p.store.dir(p.request.lab);
  p.state = p.store.load(p.request.lab);
  if (p.state.phase != "up")
    throw UsageError("lab " + p.request.lab + " is " + p.state.phase + ", not up");
  p.stamp = now_iso8601();
  for (int n = 2; std::filesystem::exists(p.dir + "/launches/" + p.stamp + "-" + p.request.job);
       ++n)
    p.stamp = now_iso8601() + "-" + std::to_string(n);
  p.request.run_dir = p.dir + "/launches/" + p.stamp + "-" + p.request.job;
}

// Every node of the lab is planned, on a slice of a lab spread over hosts too: this host's
// ranks run here, the others' on their hosts. On one host the job takes a slot of the lab
// first (docs/jobs.md): jobs side by side need rendezvous ports apart, and the slot gives
// them.
void plan_ranks(PreparedLaunch& p, const LaunchOptions& o) {
  const Plan whole = p.store.load_whole_plan(p.state);
  const std::set<std::string> here = plan_namespaces(p.state.plan);
  bool on_one_host = true;
  for (const auto& n : whole.nodes) on_one_host = on_one_host && here.count(n.ns) > 0;
  p.directions = live_directions(p.state.plan, read_current(p.dir));
  if (on_one_host) {
    try {
      p.job.emplace(p.store, p.request.lab, p.directions, "launch", p.request.job, p.job_marks);
    } catch (const JobRefused& e) {
      throw UsageError(e.what());
    }
    // The first job keeps the default port; the one in slot s gets s - 1 above it.
    if (!o.master_port && p.job->slot()) p.request.master_port += *p.job->slot() - 1;
  }
  try {
    p.ranks = plan_launch(whole, p.request);
    find_program(p.ranks.front().argv.front());
  } catch (const LaunchInputError& e) {
    throw UsageError(e.what());
  } catch (const std::system_error& e) {
    throw UsageError(std::string(e.what()) + ": no such program");
  }
  for (const auto& r : p.ranks) {
    if (here.count(r.ns)) {
      p.local.push_back(r);
      p.local_ranks.push_back(r.rank);
    } else if (!p.over_hosts) {
      p.over_hosts.emplace();
    }
  }
}

// Ranks on other hosts: where their hosts reach this one, the lab's keys, and each host's
// ranks.
void plan_other_hosts(PreparedLaunch& p, const LaunchOptions& o) {
  const std::string& lab = p.request.lab;
  if (!p.over_hosts) {
    if (o.agents_listen)
      throw UsageError(
          "--agents-listen is for a job with ranks on other hosts; every rank of this "
          "job is on this host");
    return;
  }
  if (!o.agents_listen)
    throw UsageError("lab " + lab + " is host " + p.state.host +
                     "'s slice and the job has ranks on other hosts: give --agents-listen "
                     "ADDR:PORT, an address of this host the others reach, and run `testbed "
                     "agents " +
                     lab + " --control tcp://ADDR:PORT` on each of them");
  const auto at = parse_host_port(*o.agents_listen);
  if (!at || !Ipv4Address::parse(at->address))
    throw UsageError(
        "--agents-listen must be ADDRESS:PORT, an IPv4 address of this host that the other "
        "hosts reach, not '" +
        *o.agents_listen + "'");
  OverHosts& over = *p.over_hosts;
  over.endpoint = "tcp://" + *o.agents_listen;
  over.lab = lab;
  try {
    over.keys = host_channel_keys(p.store, p.state);
  } catch (const HostKeysError& e) {
    throw UsageError(e.what());
  }
  const std::set<std::string> here = plan_namespaces(p.state.plan);
  for (auto& r : p.ranks) {
    if (here.count(r.ns)) continue;
    const auto host = over.keys.host_of_node.find(r.node);
    if (host == over.keys.host_of_node.end())
      throw UsageError("node " + r.node + " is on no host of lab " + lab + "'s placement");
    r.host = host->second;
    over.ranks_of_host[r.host].push_back(r.rank);
  }
}

// What the ranks did, as the run measured it.
struct RanksRun {
  JobOutcome outcome;
  nlohmann::json hosts_summary;
  LinksElsewhere elsewhere;
};

// The summary: the ranks' outcome and metrics, the WAN bytes, the nodes' compute, the
// cross traffic, the job's own bytes and, over hosts, what each host reported.
nlohmann::json launch_results(PreparedLaunch& p, const LaunchOptions& o, const RanksRun& run,
                              const JobMetrics& metrics, std::map<std::string, uint64_t> wan,
                              const ComputeMeter& compute, CrossTrafficWatch& cross) {
  for (const auto& [direction, bytes] : run.elsewhere.wan_bytes) wan[direction] += bytes;
  nlohmann::json summary =
      launch_summary(p.request, p.ranks, run.outcome, metrics.summary(o.target_loss), wan);
  if (compute.active()) summary["compute"] = compute.summary();
  if (auto c = cross.summary(); !c.is_null()) summary["cross_traffic"] = std::move(c);
  if (p.job) summary["job_traffic"] = p.job->summary();
  summary["master_port"] = p.request.master_port;
  if (p.over_hosts) {
    nlohmann::json hosts = run.hosts_summary;
    // This host's kernel sees its own links only (as for a run over hosts).
    hosts["controller_host"] = p.state.host;
    // Each host reads the links its own nodes send on; the WAN bytes and the health add
    // every host's that reported (hosts.links_reported_by, beside this one).
    hosts["links_measured"] =
        hosts["links_reported_by"].size() == p.over_hosts->ranks_of_host.size()
            ? "every host's"
            : "this host's and links_reported_by's";
    summary["hosts"] = hosts;
  }
  return summary;
}

void print_results(const PreparedLaunch& p, const LaunchOptions& o, const RanksRun& run,
                   const nlohmann::json& summary, const std::string& results) {
  if (o.json) {
    std::cout << summary.dump() << "\n";
    return;
  }
  std::cout << p.request.job << ": " << run.outcome.status << " on " << p.ranks.size()
            << " node(s) in " << std::fixed << std::setprecision(1) << run.outcome.wall_s << " s";
  if (!summary["final_loss"].is_null())
    std::cout << ", final loss " << std::setprecision(4) << summary["final_loss"].get<double>();
  std::cout << ", " << std::setprecision(1) << summary["wan_bytes"].get<double>() / 1e6
            << " MB over the WAN; results in " << results << "\n";
  for (const auto& line : throttled_lines(summary.value("compute", nlohmann::json())))
    std::cout << line << "\n";
}

}  // namespace

std::optional<LaunchEnd> run_launch_job(const LaunchOptions& o, const StopSignals& stop) {
  PreparedLaunch p;
  p.request.command = o.command;
  p.request.nodes = o.nodes;
  p.request.job = o.job;
  p.request.master_port = o.master_port.value_or(kDefaultMasterPort);
  resolve_lab(p, o);
  plan_ranks(p, o);
  plan_other_hosts(p, o);
  std::filesystem::create_directories(p.request.run_dir);

  zmq::context_t ctx;
  ZmqMetricsSink sink(ctx, metrics_socket(p.dir));
  const auto health = start_run_health(ctx, p.dir, p.state.plan, p.request.job);
  LibnlKernel kernel;  // reads the lab's link counters: WAN bytes
  const auto before = transmitted_bytes(p.directions, kernel);
  CrossTrafficWatch cross(p.state.plan, p.directions, p.dir, p.state.time_scale, kernel);

  std::vector<std::string> names;
  for (const auto& r : p.ranks) names.push_back(r.node);
  JobMetrics job_metrics(names);
  std::ostream& progress = o.json ? std::cerr : std::cout;
  // Over hosts, this host's ranks' lines come on the runner's thread and the others' on
  // this one: one lock keeps the terminal's lines and the metrics whole.
  std::mutex lines;
  JobRunOptions options;
  options.max_seconds = o.max_seconds;
  options.on_output = [&](const RankPlan& rank, std::string_view line) {
    std::lock_guard<std::mutex> lock(lines);
    progress << "[" << rank.node << "] " << line << "\n" << std::flush;
  };
  options.supervisor = {program_path("testbed"), "_rank", "--"};
  LabRankFaults faults(p.dir);  // a node's crash waits for its restart (docs/faults.md)
  options.faults = &faults;
  // The nodes' compute (docs/compute.md): what each used and was held back, and whether a
  // rank's death by SIGKILL was its node's memory limit.
  const ComputeMeter compute(p.state);
  if (compute.active())
    options.oom_kills = [&](const std::string& ns) { return compute.oom_kills(ns); };
  const auto on_metric = [&](size_t rank, std::string_view line, double t_s) {
    std::lock_guard<std::mutex> lock(lines);
    for (auto& event : job_metrics.add(rank, line, t_s, p.request.job)) {
      sink.publish(event);
      if (o.json) {  // live, one line per event; the summary is the last line
        event["t_s"] = t_s;
        std::cout << event.dump() << "\n" << std::flush;
      }
    }
  };
  JobRunner runner(
      p.local, options,
      [&](const RankPlan& rank, pid_t pid) { record_rank(p.store, p.request.lab, rank, pid); },
      [&](size_t i, std::string_view line, double t_s) {
        on_metric(p.local_ranks.at(i), line, t_s);
      });
  if (!o.json)
    progress << "launching " << p.request.job << " on " << p.ranks.size() << " node(s) of lab "
             << p.request.lab << "; output in " << p.request.run_dir << "\n";
  RanksRun run;
  try {
    if (!p.over_hosts) {
      run.outcome = runner.run(stop.received());
    } else {
      p.over_hosts->command = {p.request.job,
                               std::filesystem::path(p.request.run_dir).filename(),
                               p.request.command,
                               p.request.nodes,
                               p.request.master_port,
                               o.max_seconds,
                               {}};
      run.outcome = launch_over_hosts(
          ctx, *p.over_hosts, p.local.empty() ? nullptr : &runner, p.local_ranks, p.ranks.size(),
          [&](const std::string&, const RankLine& line) {
            if (line.metric) {
              on_metric(static_cast<size_t>(line.rank), line.text, line.t_s);
            } else {
              std::lock_guard<std::mutex> lock(lines);
              progress << "[" << p.ranks.at(line.rank).node << "] " << line.text << "\n"
                       << std::flush;
            }
          },
          stop.received(), progress, run.hosts_summary, run.elsewhere);
    }
  } catch (const std::system_error& e) {
    health->stop();
    std::cerr << "testbed launch: " << e.what() << "; nothing was left running\n";
    return std::nullopt;
  }
  {
    // This host's ranks only: the others' pids are their hosts' records.
    JobOutcome here_only;
    for (const int r : p.local_ranks) here_only.ranks.push_back(run.outcome.ranks.at(r));
    forget_ranks(p.store, p.request.lab, here_only);
  }

  nlohmann::json summary = launch_results(
      p, o, run, job_metrics, bytes_sent_between(before, transmitted_bytes(p.directions, kernel)),
      compute, cross);
  finish_run_health(*health, summary, p.request.job, sink, p.state.host, run.elsewhere.health);
  add_compute_notes(summary);
  if (!summary["final_loss"].is_null()) {
    const nlohmann::json t = summary.value("time_to_target_s", nlohmann::json());
    sink.publish({{"event", "run_end"},
                  {"strategy", p.request.job},
                  {"final_loss", summary["final_loss"]},
                  {"time_to_target_s", t.is_number() ? t.get<double>() : -1.0}});
  }
  for (const auto& line : failure_lines(p.ranks, run.outcome, o.max_seconds))
    std::cerr << "testbed launch: " << line << "\n";
  if (job_metrics.malformed() > 0)
    std::cerr << "testbed launch: " << job_metrics.malformed()
              << " malformed metric line(s) dropped (per node in the results)\n";
  std::filesystem::create_directories(p.dir + "/runs");
  const std::string results = p.dir + "/runs/" + p.stamp + "-" + p.request.job + ".json";
  std::ofstream(results) << summary.dump(1) << "\n";
  std::ofstream(p.request.run_dir + "/summary.json") << summary.dump(1) << "\n";
  print_results(p, o, run, summary, results);
  return LaunchEnd{run.outcome.status, stop.received().load()};
}

}  // namespace testbed
