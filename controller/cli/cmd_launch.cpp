// testbed launch [LAB] [--nodes all|N1,N2,...] [--max-seconds T] [--target-loss L]
//                [--name NAME] [--master-port P] [--json] -- CMD [ARGS...]
// Runs the user's own program once in each chosen node, as torchrun would on one process
// per host, and measures it as the built-in strategies are measured: its metric lines
// into the lab's Prometheus, WAN bytes, the emulation's health, runs/*.json. The job's
// processes are the lab's recorded processes while they run.
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <zmq.hpp>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/dynamics/link_control.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/teardown.h"
#include "controller/launch/job_metrics.h"
#include "controller/launch/job_runner.h"
#include "controller/launch/lab_rank_faults.h"
#include "controller/launch/launch_plan.h"
#include "controller/launch/launch_report.h"
#include "controller/launch/rank_records.h"
#include "controller/launch/rank_supervisor.h"
#include "controller/observe/cross_traffic_share.h"
#include "controller/observe/job_accounting.h"
#include "controller/observe/link_metrics.h"
#include "controller/observe/metrics_sink.h"
#include "controller/observe/node_compute_status.h"
#include "controller/runs/launch_over_hosts.h"
#include "controller/runs/run_health.h"
#include "controller/topology/port_number.h"
#include "netns/ipv4.h"
#include "netns/libnl_kernel.h"
#include "netns/process_launcher.h"
#include "netns/stop_signals.h"

namespace testbed::cli {
namespace {

double number_option(const Args& args, const std::string& name, double fallback) {
  const auto v = args.option(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    const double x = std::stod(*v, &used);
    if (used == v->size() && x >= 0) return x;
  } catch (const std::exception&) {
  }
  throw UsageError("--" + name + " must be a number >= 0, not '" + *v + "'");
}

}  // namespace

int run_rank(const Argv& argv) {
  Argv command = argv;
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  return supervise_rank(command);
}

int run_launch(const Argv& argv) {
  const std::string usage = usage_of("launch");
  Args args(argv, {"json"},
            {"nodes", "max-seconds", "target-loss", "name", "master-port", "agents-listen"});
  args.at_most(1, usage);
  if (args.rest().empty()) throw UsageError("no command: usage: " + usage);
  const double max_seconds = number_option(args, "max-seconds", 0);
  const std::optional<double> target =
      args.option("target-loss") ? std::optional<double>(number_option(args, "target-loss", 0))
                                 : std::nullopt;
  LaunchRequest request;
  request.command = args.rest();
  request.nodes = args.option("nodes").value_or("all");
  request.job = args.option("name").value_or(default_job_name(request.command));
  if (request.job.empty() || request.job.find_first_of("/ \t") != std::string::npos)
    throw UsageError("--name must be a word without '/' or spaces, not '" + request.job + "'");
  const bool master_port_given = args.option("master-port").has_value();
  request.master_port = static_cast<int>(number_option(args, "master-port", kDefaultMasterPort));
  const bool json = args.flag("json");
  if (lacks_privileges("launch")) return kExitFailure;

  LabStore store;
  try {
    request.lab = store.resolve(args.positional(0));
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  if (!store.has_state(request.lab)) throw UsageError("no lab named '" + request.lab + "'");
  const std::string dir = store.dir(request.lab);
  const LabState state = store.load(request.lab);
  if (state.phase != "up")
    throw UsageError("lab " + request.lab + " is " + state.phase + ", not up");
  // Named by time, as runs/ are; a second launch within the same second gets a suffix.
  std::string stamp = now_iso8601();
  for (int n = 2; std::filesystem::exists(dir + "/launches/" + stamp + "-" + request.job); ++n)
    stamp = now_iso8601() + "-" + std::to_string(n);
  request.run_dir = dir + "/launches/" + stamp + "-" + request.job;
  // Every node of the lab, on a slice of a lab spread over hosts too: this host's ranks run
  // here, the others' on their hosts (runs/launch_over_hosts.h).
  const Plan whole = store.load_whole_plan(state);
  const std::set<std::string> here = plan_namespaces(state.plan);
  // Its own bytes on each link, apart from the other jobs' on the lab (docs/jobs.md): a
  // slot of the lab, taken before the ranks are planned, since jobs side by side need
  // rendezvous ports apart and the slot gives them.
  IptablesJobMarks job_marks;
  std::optional<JobAccounting> job;
  const bool on_one_host = [&] {
    for (const auto& n : whole.nodes)
      if (!here.count(n.ns)) return false;
    return true;
  }();
  const auto directions = live_directions(state.plan, read_current(dir));
  if (on_one_host) {
    try {
      job.emplace(store, request.lab, directions, "launch", request.job, job_marks);
    } catch (const JobRefused& e) {
      throw UsageError(e.what());
    }
    // The first job keeps the default port; the one in slot s gets s - 1 above it.
    if (!master_port_given && job->slot()) request.master_port += *job->slot() - 1;
  }
  std::vector<RankPlan> ranks;
  try {
    ranks = plan_launch(whole, request);
    find_program(ranks.front().argv.front());
  } catch (const LaunchInputError& e) {
    throw UsageError(e.what());
  } catch (const std::system_error& e) {
    throw UsageError(std::string(e.what()) + ": no such program");
  }
  std::optional<OverHosts> over_hosts;
  std::vector<RankPlan> local;
  std::vector<int> local_ranks;
  for (const auto& r : ranks) {
    if (here.count(r.ns)) {
      local.push_back(r);
      local_ranks.push_back(r.rank);
    } else if (!over_hosts) {
      over_hosts.emplace();
    }
  }
  const auto listen = args.option("agents-listen");
  if (over_hosts) {
    if (!listen)
      throw UsageError("lab " + request.lab + " is host " + state.host +
                       "'s slice and the job has ranks on other hosts: give --agents-listen "
                       "ADDR:PORT, an address of this host the others reach, and run `testbed "
                       "agents " +
                       request.lab + " --control tcp://ADDR:PORT` on each of them");
    const auto at = parse_host_port(*listen);
    if (!at || !Ipv4Address::parse(at->address))
      throw UsageError(
          "--agents-listen must be ADDRESS:PORT, an IPv4 address of this host that "
          "the other hosts reach, not '" +
          *listen + "'");
    over_hosts->endpoint = "tcp://" + *listen;
    over_hosts->lab = request.lab;
    try {
      over_hosts->keys = host_channel_keys(store, state);
    } catch (const HostKeysError& e) {
      throw UsageError(e.what());
    }
    for (auto& r : ranks) {
      if (here.count(r.ns)) continue;
      const auto host = over_hosts->keys.host_of_node.find(r.node);
      if (host == over_hosts->keys.host_of_node.end())
        throw UsageError("node " + r.node + " is on no host of lab " + request.lab +
                         "'s placement");
      r.host = host->second;
      over_hosts->ranks_of_host[r.host].push_back(r.rank);
    }
  } else if (listen) {
    throw UsageError(
        "--agents-listen is for a job with ranks on other hosts; every rank of this "
        "job is on this host");
  }
  std::filesystem::create_directories(request.run_dir);

  StopSignals stop_signals;  // netns/stop_signals.h
  zmq::context_t ctx;
  ZmqMetricsSink metrics(ctx, metrics_socket(dir));
  const auto health = start_run_health(ctx, dir, state.plan, request.job);
  LibnlKernel kernel;  // reads the lab's link counters: WAN bytes
  const auto before = transmitted_bytes(directions, kernel);
  CrossTrafficWatch cross(state.plan, directions, dir, state.time_scale, kernel);

  std::vector<std::string> names;
  for (const auto& r : ranks) names.push_back(r.node);
  JobMetrics job_metrics(names);
  std::ostream& progress = json ? std::cerr : std::cout;
  // Over hosts, this host's ranks' lines come on the runner's thread and the others' on
  // this one: one lock keeps the terminal's lines and the metrics whole.
  std::mutex lines;
  JobRunOptions options;
  options.max_seconds = max_seconds;
  options.on_output = [&](const RankPlan& rank, std::string_view line) {
    std::lock_guard<std::mutex> lock(lines);
    progress << "[" << rank.node << "] " << line << "\n" << std::flush;
  };
  options.supervisor = {program_path("testbed"), "_rank", "--"};
  LabRankFaults faults(dir);  // a node's crash waits for its restart (docs/faults.md)
  options.faults = &faults;
  // The nodes' compute (docs/compute.md): what each used and was held back, and whether a
  // rank's death by SIGKILL was its node's memory limit.
  const ComputeMeter compute(state);
  if (compute.active())
    options.oom_kills = [&](const std::string& ns) { return compute.oom_kills(ns); };
  const auto on_metric = [&](size_t rank, std::string_view line, double t_s) {
    std::lock_guard<std::mutex> lock(lines);
    for (auto& event : job_metrics.add(rank, line, t_s, request.job)) {
      metrics.publish(event);
      if (json) {  // live, one line per event; the summary is the last line
        event["t_s"] = t_s;
        std::cout << event.dump() << "\n" << std::flush;
      }
    }
  };
  JobRunner runner(
      local, options,
      [&](const RankPlan& rank, pid_t pid) { record_rank(store, request.lab, rank, pid); },
      [&](size_t i, std::string_view line, double t_s) {
        on_metric(local_ranks.at(i), line, t_s);
      });
  if (!json)
    progress << "launching " << request.job << " on " << ranks.size() << " node(s) of lab "
             << request.lab << "; output in " << request.run_dir << "\n";
  JobOutcome outcome;
  nlohmann::json hosts_summary;
  LinksElsewhere elsewhere;
  try {
    if (!over_hosts) {
      outcome = runner.run(stop_signals.received());
    } else {
      over_hosts->command = {request.job,
                             std::filesystem::path(request.run_dir).filename(),
                             request.command,
                             request.nodes,
                             request.master_port,
                             max_seconds,
                             {}};
      outcome = launch_over_hosts(
          ctx, *over_hosts, local.empty() ? nullptr : &runner, local_ranks, ranks.size(),
          [&](const std::string&, const RankLine& line) {
            if (line.metric) {
              on_metric(static_cast<size_t>(line.rank), line.text, line.t_s);
            } else {
              std::lock_guard<std::mutex> lock(lines);
              progress << "[" << ranks.at(line.rank).node << "] " << line.text << "\n"
                       << std::flush;
            }
          },
          stop_signals.received(), progress, hosts_summary, elsewhere);
    }
  } catch (const std::system_error& e) {
    health->stop();
    std::cerr << "testbed launch: " << e.what() << "; nothing was left running\n";
    return kExitFailure;
  }
  {
    // This host's ranks only: the others' pids are their hosts' records.
    JobOutcome here_only;
    for (const int r : local_ranks) here_only.ranks.push_back(outcome.ranks.at(r));
    forget_ranks(store, request.lab, here_only);
  }

  auto wan = bytes_sent_between(before, transmitted_bytes(directions, kernel));
  for (const auto& [direction, bytes] : elsewhere.wan_bytes) wan[direction] += bytes;
  nlohmann::json summary =
      launch_summary(request, ranks, outcome, job_metrics.summary(target), wan);
  if (compute.active()) summary["compute"] = compute.summary();
  if (auto c = cross.summary(); !c.is_null()) summary["cross_traffic"] = std::move(c);
  if (job) summary["job_traffic"] = job->summary();
  summary["master_port"] = request.master_port;
  if (over_hosts) {
    // This host's kernel sees its own links only (as for a run over hosts).
    hosts_summary["controller_host"] = state.host;
    // Each host reads the links its own nodes send on; the WAN bytes and the health add
    // every host's that reported (hosts.links_reported_by, beside this one).
    hosts_summary["links_measured"] =
        hosts_summary["links_reported_by"].size() == over_hosts->ranks_of_host.size()
            ? "every host's"
            : "this host's and links_reported_by's";
    summary["hosts"] = hosts_summary;
  }
  finish_run_health(*health, summary, request.job, metrics, state.host, elsewhere.health);
  add_compute_notes(summary);
  if (!summary["final_loss"].is_null()) {
    const nlohmann::json t = summary.value("time_to_target_s", nlohmann::json());
    metrics.publish({{"event", "run_end"},
                     {"strategy", request.job},
                     {"final_loss", summary["final_loss"]},
                     {"time_to_target_s", t.is_number() ? t.get<double>() : -1.0}});
  }
  for (const auto& line : failure_lines(ranks, outcome, max_seconds))
    std::cerr << "testbed launch: " << line << "\n";
  if (job_metrics.malformed() > 0)
    std::cerr << "testbed launch: " << job_metrics.malformed()
              << " malformed metric line(s) dropped (per node in the results)\n";
  std::filesystem::create_directories(dir + "/runs");
  const std::string results = dir + "/runs/" + stamp + "-" + request.job + ".json";
  std::ofstream(results) << summary.dump(1) << "\n";
  std::ofstream(request.run_dir + "/summary.json") << summary.dump(1) << "\n";

  if (json) {
    std::cout << summary.dump() << "\n";
  } else {
    std::cout << request.job << ": " << outcome.status << " on " << ranks.size() << " node(s) in "
              << std::fixed << std::setprecision(1) << outcome.wall_s << " s";
    if (!summary["final_loss"].is_null())
      std::cout << ", final loss " << std::setprecision(4) << summary["final_loss"].get<double>();
    std::cout << ", " << std::setprecision(1) << summary["wan_bytes"].get<double>() / 1e6
              << " MB over the WAN; results in " << results << "\n";
    for (const auto& line : throttled_lines(summary.value("compute", nlohmann::json())))
      std::cout << line << "\n";
  }
  if (outcome.status == "completed") return kExitOk;
  if (outcome.status == "interrupted") return 128 + stop_signals.received().load();
  return kExitFailure;
}

}  // namespace testbed::cli
