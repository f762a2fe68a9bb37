// testbed train [LAB] [--strategy NAME] [--iterations N] [--model M] ... (see kTrainUsage):
// the verb's arguments; the run itself is runs/training_run.h's.
#include <csignal>
#include <nlohmann/json.hpp>

#include "controller/cli/commands.h"
#include "controller/cli/train_args.h"
#include "controller/lab/fit/fit_decision.h"
#include "controller/lab/lab_state.h"
#include "controller/runs/training_run.h"
#include "controller/topology/port_number.h"
#include "netns/ipv4.h"
#include "netns/stop_signals.h"

namespace testbed::cli {

int run_train(const Argv& argv) {
  const Args args = parse_train_args(argv);
  if (auto s = args.option("strategy")) {  // a bad name fails before anything is started
    const std::string why = check_workload_setting("strategy", *s);
    if (!why.empty()) throw UsageError("--strategy: " + why);
  }
  if (lacks_privileges("train")) return kExitFailure;

  LabStore store;
  const std::string lab = store.resolve(args.positional(0));
  LabState state = store.load(lab);
  if (state.phase != "up")
    throw std::runtime_error("lab " + lab + " is " + state.phase + ", not up");
  TrainOptions o = resolve_train_options(command_line(args), nlohmann::json(state.plan.workload));
  // A lab fitted to this machine (`up --fit scale`) has its rates scaled: the model
  // follows, so that an iteration takes the time it would at the profile's rates.
  apply_fit_factor(o, fit_factor_of(state.plan.fit));
  if (const auto listen = args.option("agents-listen")) {
    const auto at = parse_host_port(*listen);
    if (!at || !Ipv4Address::parse(at->address))
      throw UsageError(
          "--agents-listen must be ADDRESS:PORT, an IPv4 address of this host that "
          "the other hosts reach, not '" +
          *listen + "'");
    o.agents_listen = "tcp://" + *listen;
  }
  if (const auto v = args.option("van-security")) {
    if (*v != "plain" && *v != "curve")
      throw UsageError("--van-security must be plain or curve, not '" + *v + "'");
    o.van_security = *v;
  }
  bool ok = false;
  int stopped_by = 0;
  {
    const StopSignals stop({SIGINT, SIGTERM});  // netns/stop_signals.h
    ok = run_training(store, lab, std::move(state), o, stop);
    stopped_by = stop.received();
  }
  // Ended by a signal, with its agents stopped: die of it as without the catcher (its
  // handler is gone with `stop`), so that the parent sees the signal.
  if (stopped_by != 0) raise(stopped_by);
  return ok ? kExitOk : kExitFailure;
}

}  // namespace testbed::cli
