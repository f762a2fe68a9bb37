// testbed up FILE [--dry-run]: validate and plan, then build the lab (controller/runs/
// lab_bring_up.h does the work and rolls back a failure). With --hosts and --host, only
// this host's slice of the lab (docs/multihost.md); with --adopt, node namespaces someone
// else made (a pod's) are used and never deleted.

#include <chrono>
#include <iomanip>
#include <iostream>

#include "agent/transport/curve_keys.h"
#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/hosts/host_placement.h"
#include "controller/lab/applier.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/plan_table.h"
#include "controller/runs/lab_bring_up.h"
#include "controller/runs/observability.h"
#include "controller/topology/units.h"
#include "netns/stop_signals.h"
#include "netns/wait_set.h"

namespace testbed::cli {
namespace {

double parse_time_scale(const std::string& value) {
  double scale = 0;
  try {
    scale = std::stod(value);
  } catch (const std::exception&) {
    scale = 0;
  }
  if (!(scale > 0))
    throw UsageError("--time-scale must be a number greater than 0, not '" + value + "'");
  return scale;
}

// --start-at: Unix seconds, the same on every host of a lab spread over hosts. A moment
// already past would make the timeline replay every change since, at once; a few seconds'
// slack allows for the hosts' commands not starting together.
double parse_start_at(const std::optional<std::string>& value) {
  if (!value) return 0;
  constexpr double kPastSlackS = 10;
  double t = 0;
  try {
    size_t used = 0;
    t = std::stod(*value, &used);
    if (used != value->size()) t = 0;
  } catch (const std::exception&) {
    t = 0;
  }
  if (!(t > 0)) throw UsageError("--start-at must be Unix seconds, not '" + *value + "'");
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (t < now - kPastSlackS) {
    throw UsageError("--start-at " + *value + " is " + std::to_string(static_cast<long>(now - t)) +
                     " s in the past; give a moment ahead, the same on every host");
  }
  return t;
}

// --foreground: the lab lives as long as this process (a pod's sidecar container, which
// Kubernetes stops with SIGTERM): wait for a signal, then take the lab down as `down` does.
int stay_up(const LabStore& store, std::optional<LabLock> lock, const std::string& lab,
            const StopSignals& stop) {
  std::cout << "staying in the foreground; a signal takes the lab down" << std::endl;
  lock.reset();  // so `status`, `exec` and `train` can work on the lab meanwhile
  WaitSet signals(&stop);
  while (!stop.stopping()) signals.wait(WaitSet::kForever);  // wakes at the signal
  auto again = store.lock(lab, /*wait=*/true);
  return remove_lab(store, store.load(lab, LabStore::PlanSteps::kIfAdopted), "up");
}

// With keys in the placement, this host's key pair: --key FILE, or HOST.key beside the
// placement file (where `testbed keys` writes it); its public half must be the placement's.
std::optional<CurveKeyPair> load_host_key(const HostPlacement& placement, const std::string& spec,
                                          const std::string& host,
                                          const std::optional<std::string>& given) {
  if (placement.keys.empty()) {
    if (given) throw UsageError("--key: the placement " + spec + " has no keys");
    return std::nullopt;
  }
  const std::string path =
      given ? *given : (std::filesystem::path(spec).parent_path() / (host + ".key")).string();
  CurveKeyPair pair;
  try {
    pair = read_curve_key_file(path);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("host ") + host + "'s key: " + e.what() +
                     " (the placement has keys: give this host's with --key FILE)");
  }
  if (pair.public_key != placement.keys.at(host))
    throw UsageError("--key: " + path + " is not host " + host + "'s key in " + spec);
  return pair;
}

void print_up(const Plan& plan, const UpReport& report, bool timings) {
  if (!report.state.host.empty()) std::cout << "host " << report.state.host << ": ";
  std::cout << "lab " << plan.lab << " is up: " << plan.nodes.size() << " nodes, "
            << plan.links.size() << " links, " << route_count(plan) << " routes as "
            << kernel_route_count(plan) << " prefixes (" << report.kernel_changes
            << " kernel changes in " << std::fixed << std::setprecision(2) << report.seconds
            << " s)\n";
  for (const auto& note : plan.notes) std::cout << "note: " << note << "\n";
  if (!plan.fit.is_null()) std::cout << "fit: " << plan.fit.value("why", "") << "\n";
  if (timings) {
    std::cout << "timings:\n";
    for (const auto& [name, seconds] : report.phases)
      std::cout << "  " << std::setw(8) << std::setprecision(3) << seconds << " s  " << name
                << "\n";
  }
  for (const auto& [what, where] : report.state.urls) std::cout << what << ": " << where << "\n";
  for (const auto& line : report.watch) std::cout << line << "\n";
  if (plan.nodes.size() >= 2) {
    std::cout << "try: testbed exec " << plan.nodes[0].name << " -- ping -c 3 "
              << plan.nodes[1].address.str() << "\n";
  }
}

}  // namespace

int run_up(const Argv& argv) {
  const std::string usage = usage_of("up");
  const auto began = std::chrono::steady_clock::now();
  Args args(argv, {"dry-run", "grafana", "adopt", "foreground", "timings"},
            {"backend", "time-scale", "prometheus", "release-window", "hosts", "host", "metrics",
             "start-at", "key", "fit"});
  if (args.option("hosts").has_value() != args.option("host").has_value()) {
    throw UsageError("--hosts and --host go together: each host brings up its own slice");
  }
  UpRequest request;
  request.observability.grafana = args.flag("grafana");
  if (auto p = args.option("prometheus"))
    request.observability.prometheus = parse_prometheus_option(*p);
  if (auto m = args.option("metrics")) parse_metrics_option(*m, request.observability);
  args.at_most(1, usage);
  if (args.positionals().empty()) throw UsageError("usage: " + usage);
  PlanOptions options;
  options.fit_to_machine = true;
  if (auto b = args.option("backend")) options.backend = parse_backend_option(*b);
  if (auto w = args.option("release-window")) {
    std::string why;
    const auto d = parse_duration(*w, why);
    if (!d) throw UsageError("--release-window: " + why);
    options.release_window_us = d->us;
  }
  if (auto f = args.option("fit")) parse_fit_option(*f, options);
  // Each host would fit its slice to its own budget, and a link between two hosts would
  // get two rates: a lab over hosts takes one factor, the same on every host.
  if (args.option("hosts") && (options.fit == FitMode::kScale || options.fit == FitMode::kRefuse))
    throw UsageError("--fit " + *args.option("fit") +
                     " fits to this host's budget alone; over hosts give every host the same "
                     "factor: --fit F (docs/fit.md)");
  if (auto t = args.option("time-scale")) request.time_scale = parse_time_scale(*t);
  request.start_at_unix_s = parse_start_at(args.option("start-at"));
  request.adopt = args.flag("adopt");
  auto whole = load_plan(args.positional(0), options);
  if (!whole) return kExitInvalid;
  const double plan_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::optional<PlanSlice> slice;
  if (const auto hosts = args.option("hosts")) {
    const auto placement = load_host_placement(*hosts, *whole);
    if (!placement) return kExitInvalid;
    slice = host_slice(*whole, *placement, *args.option("host"));
    request.host = slice->host;
    request.placement = placement_record(*placement);
    request.host_key = load_host_key(*placement, *hosts, slice->host, args.option("key"));
  } else if (args.option("key")) {
    throw UsageError("--key is a host's key in a lab spread over hosts: give --hosts and --host");
  }
  if (args.flag("dry-run")) {
    print_plan_table(slice ? slice->plan : *whole, std::cout, true);
    std::cout << "\ndry run: nothing was changed\n";
    return kExitOk;
  }
  if (lacks_privileges("up")) return kExitFailure;
  // From here on a signal only sets a flag: the applier stops at the next step and rolls
  // back, so Ctrl-C never leaves half a lab.
  StopSignals stop_signals;  // netns/stop_signals.h
  LabStore store;
  // The plan moves into the lab's state (bring_up_lab), and a slice's whole stays here.
  if (slice) {
    request.plan = std::move(slice->plan);
    request.whole = &*whole;
  } else {
    request.plan = std::move(*whole);
  }
  const std::string lab = request.plan.lab;
  try {
    UpReport report = bring_up_lab(std::move(request), store, stop_signals);
    report.phases.insert(report.phases.begin(), {"plan", plan_s});
    print_up(report.state.plan, report, args.flag("timings"));
    if (args.flag("foreground")) return stay_up(store, std::move(report.lock), lab, stop_signals);
    return kExitOk;
  } catch (const UpRefused& e) {
    std::cerr << "testbed up: " << e.what() << "\n";
    return kExitFailure;
  } catch (const ApplyError& e) {
    std::cerr << "testbed up: " << e.what() << "\n";
    if (e.rollback_errors().empty()) {
      std::cerr << "rolled back: nothing of lab '" << lab << "' remains\n";
    } else {
      for (const auto& err : e.rollback_errors()) std::cerr << "  " << err << "\n";
      std::cerr << "rollback was incomplete; run 'testbed clean' to remove the rest\n";
    }
    return kExitFailure;
  }
}

}  // namespace testbed::cli
