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
#include "controller/launch/rank_supervisor.h"
#include "controller/observe/link_metrics.h"
#include "controller/observe/metrics_sink.h"
#include "controller/observe/node_compute_status.h"
#include "controller/runs/run_health.h"
#include "netns/libnl_kernel.h"
#include "netns/process_launcher.h"

namespace testbed::cli {
namespace {

std::atomic<int> g_signal{0};
void on_signal(int sig) {
  g_signal = sig;
}

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

// Records the job's processes in the lab's state (so `down` and `clean` can end them
// whatever happens to this controller), and forgets them when they are done.
void record_rank(const LabStore& store, const std::string& lab, const RankPlan& rank, pid_t pid) {
  auto lock = store.lock(lab, /*wait=*/true);
  LabState s = store.load(lab);
  s.processes.push_back(
      owned_by_me({pid, process_start_time(pid), rank.node, rank.argv, /*group=*/true}));
  store.save(s);
}

void forget_ranks(const LabStore& store, const std::string& lab, const JobOutcome& outcome) {
  std::vector<int> pids;
  for (const RankOutcome& r : outcome.ranks) {
    pids.push_back(r.pid);
    pids.insert(pids.end(), r.earlier_pids.begin(), r.earlier_pids.end());
  }
  forget_processes(store, lab, pids);
}

}  // namespace

int run_rank(const Argv& argv) {
  Argv command = argv;
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  return supervise_rank(command);
}

int run_launch(const Argv& argv) {
  const std::string usage = usage_of("launch");
  Args args(argv, {"json"}, {"nodes", "max-seconds", "target-loss", "name", "master-port"});
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
  std::vector<RankPlan> ranks;
  try {
    ranks = plan_launch(state.plan, request);
    find_program(ranks.front().argv.front());
  } catch (const LaunchInputError& e) {
    throw UsageError(e.what());
  } catch (const std::system_error& e) {
    throw UsageError(std::string(e.what()) + ": no such program");
  }
  std::filesystem::create_directories(request.run_dir);

  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_signal);
  zmq::context_t ctx;
  ZmqMetricsSink metrics(ctx, metrics_socket(dir));
  const auto directions = live_directions(state.plan, read_current(dir));
  const auto health = start_run_health(ctx, dir, state.plan, request.job);
  LibnlKernel kernel;  // reads the lab's link counters: WAN bytes
  const auto before = transmitted_bytes(directions, kernel);

  std::vector<std::string> names;
  for (const auto& r : ranks) names.push_back(r.node);
  JobMetrics job_metrics(names);
  std::ostream& progress = json ? std::cerr : std::cout;
  JobRunOptions options;
  options.max_seconds = max_seconds;
  options.echo = &progress;
  options.supervisor = {program_path("testbed"), "_rank", "--"};
  LabRankFaults faults(dir);  // a node's crash waits for its restart (docs/faults.md)
  options.faults = &faults;
  // The nodes' compute (docs/compute.md): what each used and was held back, and whether a
  // rank's death by SIGKILL was its node's memory limit.
  const ComputeMeter compute(state);
  if (compute.active())
    options.oom_kills = [&](const std::string& ns) { return compute.oom_kills(ns); };
  JobRunner runner(
      ranks, options,
      [&](const RankPlan& rank, pid_t pid) { record_rank(store, request.lab, rank, pid); },
      [&](size_t rank, std::string_view line, double t_s) {
        for (auto& event : job_metrics.add(rank, line, t_s, request.job)) {
          metrics.publish(event);
          if (json) {  // live, one line per event; the summary is the last line
            event["t_s"] = t_s;
            std::cout << event.dump() << "\n" << std::flush;
          }
        }
      });
  if (!json)
    progress << "launching " << request.job << " on " << ranks.size() << " node(s) of lab "
             << request.lab << "; output in " << request.run_dir << "\n";
  JobOutcome outcome;
  try {
    outcome = runner.run(g_signal);
  } catch (const std::system_error& e) {
    health->stop();
    std::cerr << "testbed launch: " << e.what() << "; nothing was left running\n";
    return kExitFailure;
  }
  forget_ranks(store, request.lab, outcome);

  const auto wan = bytes_sent_between(before, transmitted_bytes(directions, kernel));
  nlohmann::json summary =
      launch_summary(request, ranks, outcome, job_metrics.summary(target), wan);
  if (compute.active()) summary["compute"] = compute.summary();
  finish_run_health(*health, summary, request.job, metrics);
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
  if (outcome.status == "interrupted") return 128 + g_signal.load();
  return kExitFailure;
}

}  // namespace testbed::cli
