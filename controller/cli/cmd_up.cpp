// testbed up FILE [--dry-run]: validate, plan, and build the lab. Every namespace is
// written to the state file before it is created, so a controller killed at any point
// leaves a record that `testbed clean` can act on. A failure or a signal rolls back.
// With --hosts and --host, only this host's slice of the lab (docs/multihost.md); with
// --adopt, node namespaces someone else made (a pod's) are used and never deleted.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iomanip>
#include <iostream>

#include "agent/transport/curve_keys.h"
#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/verbs.h"
#include "controller/dynamics/link_control.h"
#include "controller/lab/applier.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/plan_table.h"
#include "controller/lab/teardown.h"
#include "controller/runs/lab_processes.h"
#include "controller/runs/observability.h"
#include "controller/topology/units.h"
#include "netns/capabilities.h"
#include "netns/crash_point.h"
#include "netns/libnl_kernel.h"
#include "netns/stop_signals.h"

namespace testbed::cli {
namespace {

long env_number(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atol(v) : 0;
}

std::string refusal(const LabStore& store, const std::string& lab) {
  const LabState s = store.load(lab);
  if (s.phase == "up") {
    return "lab '" + lab + "' is already up (from " + s.source + "); run 'testbed down " + lab +
           "' first";
  }
  return "lab '" + lab + "' has state from an unfinished run (phase " + s.phase +
         "); run 'testbed clean' first";
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
  pollfd woken{stop.fd(), POLLIN, 0};
  while (!stop.stopping()) poll(&woken, 1, -1);  // returns at the signal (EINTR or its byte)
  auto again = store.lock(lab, /*wait=*/true);
  return remove_lab(store, store.load(lab), "up");
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

}  // namespace

int run_up(const Argv& argv) {
  const std::string usage = usage_of("up");
  const auto began = std::chrono::steady_clock::now();
  Args args(argv, {"dry-run", "grafana", "adopt", "foreground", "timings"},
            {"backend", "time-scale", "prometheus", "release-window", "hosts", "host", "metrics",
             "start-at", "key"});
  if (args.option("hosts").has_value() != args.option("host").has_value()) {
    throw UsageError("--hosts and --host go together: each host brings up its own slice");
  }
  ObservabilityOptions observability;
  observability.grafana = args.flag("grafana");
  if (auto p = args.option("prometheus")) observability.prometheus = parse_prometheus_option(*p);
  if (auto m = args.option("metrics")) parse_metrics_option(*m, observability);
  args.at_most(1, usage);
  if (args.positionals().empty()) throw UsageError("usage: " + usage);
  PlanOptions options;
  if (auto b = args.option("backend")) options.backend = parse_backend_option(*b);
  if (auto w = args.option("release-window")) {
    std::string why;
    const auto d = parse_duration(*w, why);
    if (!d) throw UsageError("--release-window: " + why);
    options.release_window_us = d->us;
  }
  double time_scale = 1.0;
  if (auto t = args.option("time-scale")) {
    try {
      time_scale = std::stod(*t);
    } catch (const std::exception&) {
      time_scale = 0;
    }
    if (!(time_scale > 0))
      throw UsageError("--time-scale must be a number greater than 0, not '" + *t + "'");
  }
  const double start_at = parse_start_at(args.option("start-at"));
  const auto whole = load_plan(args.positional(0), options);
  if (!whole) return kExitInvalid;
  // Where the time goes (--timings): each phase's seconds, in order.
  std::vector<std::pair<std::string, double>> phases;
  auto lap = began;
  const auto phase = [&](const std::string& name) {
    const auto now = std::chrono::steady_clock::now();
    phases.emplace_back(name, std::chrono::duration<double>(now - lap).count());
    lap = now;
  };
  phase("plan");
  std::optional<PlanSlice> slice;
  nlohmann::json placement_kept;
  std::optional<CurveKeyPair> host_key;
  if (const auto hosts = args.option("hosts")) {
    const auto placement = load_host_placement(*hosts, *whole);
    if (!placement) return kExitInvalid;
    slice = host_slice(*whole, *placement, *args.option("host"));
    placement_kept = placement_record(*placement);
    host_key = load_host_key(*placement, *hosts, slice->host, args.option("key"));
  } else if (args.option("key")) {
    throw UsageError("--key is a host's key in a lab spread over hosts: give --hosts and --host");
  }
  const Plan* plan = slice ? &slice->plan : &*whole;
  if (args.flag("dry-run")) {
    print_plan_table(*plan, std::cout, true);
    std::cout << "\ndry run: nothing was changed\n";
    return kExitOk;
  }
  if (lacks_privileges("up")) return kExitFailure;
  const bool needs_netem =
      std::any_of(plan->links.begin(), plan->links.end(),
                  [](const PlannedLink& l) { return l.a2b.netem || l.b2a.netem; });
  if (needs_netem) {
    const NetemSupport netem = detect_netem();
    if (!netem.available) {
      std::cerr << "testbed up: the netem backend needs sch_netem, which this kernel lacks ("
                << netem.how << "); use --backend delayline or auto. Nothing was changed.\n";
      return kExitFailure;
    }
  }
  // From here on a signal only sets a flag: the applier stops at the next step and rolls
  // back, so Ctrl-C never leaves half a lab.
  StopSignals stop_signals;  // netns/stop_signals.h

  LabStore store;
  auto lock = store.lock(plan->lab, /*wait=*/false);
  if (!lock) {
    std::cerr << "testbed up: another testbed command is working on lab '" << plan->lab << "'\n";
    return kExitFailure;
  }
  if (store.has_state(plan->lab)) {
    std::cerr << "testbed up: " << refusal(store, plan->lab) << "\n";
    return kExitFailure;
  }
  LibnlKernel kernel;
  std::vector<std::string> taken;
  for (const auto& n : plan->nodes) {
    if (kernel.namespace_exists(n.ns)) taken.push_back(n.ns);
  }
  if (!taken.empty() && !args.flag("adopt")) {
    std::cerr << "testbed up: namespace " << taken.front()
              << (taken.size() > 1 ? " (and " + std::to_string(taken.size() - 1) + " more)" : "")
              << " already exists but is not recorded by lab '" << plan->lab
              << "'; the testbed will not touch it. Remove it yourself, rename the lab, or "
                 "pass --adopt to use it as it is (a pod's namespace).\n";
    store.remove(plan->lab);
    return kExitFailure;
  }

  LabState state;
  state.lab = plan->lab;
  state.source = plan->source_file;
  state.phase = "applying";
  state.controller_pid = getpid();
  state.created_at = now_iso8601();
  state.time_scale = time_scale;
  state.start_at_unix_s = start_at;
  state.plan = *plan;
  if (slice) state.host = slice->host;
  state.placement = placement_kept;
  if (args.flag("adopt")) state.adopted = taken;
  store.save_plan(plan->lab, state.plan);
  if (slice) store.save_whole_plan(plan->lab, *whole);
  store.save(state);
  if (host_key)
    write_curve_key_file(store.host_key_path(plan->lab), *host_key,
                         "host " + slice->host + " of lab " + plan->lab);
  phase("checks and plan.json");

  ApplyHooks hooks;
  hooks.before_create_namespace = [&](const CreateNamespace& s) {
    state.namespaces.push_back({s.ns, 0});
    store.record_namespace(state.lab, state.namespaces.back());
  };
  hooks.after_create_namespace = [&](const CreateNamespace& s, uint64_t inode) {
    state.namespaces.back() = {s.ns, inode};
    store.record_namespace(state.lab, state.namespaces.back());
  };
  hooks.after_rollback_namespace = [&](const CreateNamespace& s) {
    std::erase_if(state.namespaces, [&](const auto& r) { return r.name == s.ns; });
  };

  // Fault injection for the integration tests, so that "killed mid-way" and "failed
  // mid-way" happen at a chosen step instead of by timing luck.
  const long stop_at = env_number("TESTBED_FAULT_STOP_AT_STEP");
  const long fail_at = env_number("TESTBED_FAULT_FAIL_AT_STEP");
  hooks.before_step = [&](size_t index, const Step& step) {
    if (static_cast<long>(index) + 1 == stop_at) raise(SIGSTOP);
    if (static_cast<long>(index) + 1 == fail_at) throw std::runtime_error("injected failure");
    crash_point("up:plan step");
    if (acts_only_in(step, state.adopted)) {
      state.adopted_steps.push_back(index);
      store.save(state);
    }
  };

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> watch;  // URLs and advice for watching the lab
  try {
    const ApplyResult result = Applier(kernel, hooks, &stop_signals.stopping()).apply(*plan);
    for (const auto& [op, t] : result.by_op)
      phases.emplace_back(op + " x" + std::to_string(t.steps), t.seconds);
    phase("kernel changes (all)");
    try {
      crash_point("up:kernel changes made");
      create_identities(*plan, *whole, store, state);
      phase("hostnames and hosts files");
      create_node_cgroups(*plan, store, state);
      phase("nodes' compute (cgroups)");
      start_processes(*plan, store, state);
      phase("delay lines and timeline");
      watch = start_observability(store, state, observability);
      phase("exporter and dashboards");
      if (env_number("TESTBED_FAULT_STOP_AFTER_START") == 1) raise(SIGSTOP);
      if (stop_signals.stopping()) throw std::runtime_error("interrupted by a signal");
    } catch (const std::exception& e) {
      const TeardownReport report = teardown_lab(state, kernel);
      if (!report.errors.empty()) throw ApplyError(e.what(), report.errors);
      throw ApplyError(e.what(), {});
    }
    crash_point("up:all started, phase not yet up");
    state.phase = "up";
    store.save(state);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (slice) std::cout << "host " << slice->host << ": ";
    std::cout << "lab " << plan->lab << " is up: " << plan->nodes.size() << " nodes, "
              << plan->links.size() << " links, " << route_count(*plan) << " routes ("
              << result.changed << " kernel changes in " << std::fixed << std::setprecision(2)
              << seconds << " s)\n";
    for (const auto& note : plan->notes) std::cout << "note: " << note << "\n";
    if (args.flag("timings")) {
      std::cout << "timings:\n";
      for (const auto& [name, seconds] : phases)
        std::cout << "  " << std::setw(8) << std::setprecision(3) << seconds << " s  " << name
                  << "\n";
    }
    for (const auto& [what, where] : state.urls) std::cout << what << ": " << where << "\n";
    for (const auto& line : watch) std::cout << line << "\n";
    if (plan->nodes.size() >= 2) {
      std::cout << "try: testbed exec " << plan->nodes[0].name << " -- ping -c 3 "
                << plan->nodes[1].address.str() << "\n";
    }
    if (args.flag("foreground")) return stay_up(store, std::move(lock), plan->lab, stop_signals);
    return kExitOk;
  } catch (const ApplyError& e) {
    std::cerr << "testbed up: " << e.what() << "\n";
    if (e.rollback_errors().empty()) {
      store.remove(plan->lab);
      std::cerr << "rolled back: nothing of lab '" << plan->lab << "' remains\n";
    } else {
      state.phase = "failed";
      store.save(state);
      for (const auto& err : e.rollback_errors()) std::cerr << "  " << err << "\n";
      std::cerr << "rollback was incomplete; run 'testbed clean' to remove the rest\n";
    }
    return kExitFailure;
  }
}

}  // namespace testbed::cli
