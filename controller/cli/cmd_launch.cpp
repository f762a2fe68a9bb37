// testbed launch [LAB] [--nodes all|N1,N2,...] [--max-seconds T] [--target-loss L]
//                [--name NAME] [--master-port P] [--json] -- CMD [ARGS...]
// Runs the user's own program once in each chosen node, as torchrun would on one process
// per host, and measures it as the built-in strategies are measured: its metric lines
// into the lab's Prometheus, WAN bytes, the emulation's health, runs/*.json. The job's
// processes are the lab's recorded processes while they run.
#include <optional>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/launch/launch_plan.h"
#include "controller/launch/rank_supervisor.h"
#include "controller/runs/launch_run.h"
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

LaunchOptions launch_options(const Argv& argv) {
  const std::string usage = usage_of("launch");
  Args args(argv, {"json"},
            {"nodes", "max-seconds", "target-loss", "name", "master-port", "agents-listen"});
  args.at_most(1, usage);
  if (args.rest().empty()) throw UsageError("no command: usage: " + usage);
  LaunchOptions o;
  o.lab = args.positional(0);
  o.command = args.rest();
  o.nodes = args.option("nodes").value_or("all");
  o.job = args.option("name").value_or(default_job_name(o.command));
  if (o.job.empty() || o.job.find_first_of("/ \t") != std::string::npos)
    throw UsageError("--name must be a word without '/' or spaces, not '" + o.job + "'");
  if (args.option("master-port"))
    o.master_port = static_cast<int>(number_option(args, "master-port", kDefaultMasterPort));
  o.max_seconds = number_option(args, "max-seconds", 0);
  if (args.option("target-loss")) o.target_loss = number_option(args, "target-loss", 0);
  o.agents_listen = args.option("agents-listen");
  o.json = args.flag("json");
  return o;
}

}  // namespace

int run_rank(const Argv& argv) {
  Argv command = argv;
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  return supervise_rank(command);
}

int run_launch(const Argv& argv) {
  const LaunchOptions options = launch_options(argv);
  if (lacks_privileges("launch")) return kExitFailure;
  StopSignals stop;  // netns/stop_signals.h
  const auto end = run_launch_job(options, stop);
  if (!end) return kExitFailure;
  if (end->status == "completed") return kExitOk;
  if (end->status == "interrupted") return 128 + end->signal;
  return kExitFailure;
}

}  // namespace testbed::cli
