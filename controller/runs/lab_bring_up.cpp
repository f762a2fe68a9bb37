// Every namespace is written to the state file before it is created, so a controller killed
// at any point leaves a record that `testbed clean` can act on; a failure or a signal rolls
// back.
#include "controller/runs/lab_bring_up.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>

#include "controller/lab/applier.h"
#include "controller/lab/teardown.h"
#include "controller/runs/lab_processes.h"
#include "netns/capabilities.h"
#include "netns/crash_point.h"
#include "netns/libnl_kernel.h"

namespace testbed {
namespace {

// Fault injection for the integration tests, so that "killed mid-way" and "failed mid-way"
// happen at a chosen step instead of by timing luck. Read here and nowhere else: the step
// (1-based) at which `up` stops itself (SIGSTOP) or throws, and whether it stops once all
// is started. Unset, they are 0: no fault.
struct InjectedFaults {
  long stop_at_step = 0;
  long fail_at_step = 0;
  bool stop_after_start = false;
};

long env_number(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atol(v) : 0;
}

InjectedFaults injected_faults() {
  return {env_number("TESTBED_FAULT_STOP_AT_STEP"), env_number("TESTBED_FAULT_FAIL_AT_STEP"),
          env_number("TESTBED_FAULT_STOP_AFTER_START") == 1};
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

void refuse_without_netem(const Plan& plan) {
  const bool needs_netem =
      std::any_of(plan.links.begin(), plan.links.end(),
                  [](const PlannedLink& l) { return l.a2b.netem || l.b2a.netem; });
  if (!needs_netem) return;
  const NetemSupport netem = detect_netem();
  if (!netem.available) {
    throw UpRefused("the netem backend needs sch_netem, which this kernel lacks (" + netem.how +
                    "); use --backend delayline or auto. Nothing was changed.");
  }
}

// The node namespaces that exist already: refused unless adopted (a pod's).
std::vector<std::string> namespaces_taken(const Plan& plan, LibnlKernel& kernel, bool adopt) {
  std::vector<std::string> taken;
  for (const auto& n : plan.nodes) {
    if (kernel.namespace_exists(n.ns)) taken.push_back(n.ns);
  }
  if (!taken.empty() && !adopt) {
    throw UpRefused(
        "namespace " + taken.front() +
        (taken.size() > 1 ? " (and " + std::to_string(taken.size() - 1) + " more)" : "") +
        " already exists but is not recorded by lab '" + plan.lab +
        "'; the testbed will not touch it. Remove it yourself, rename the lab, or "
        "pass --adopt to use it as it is (a pod's namespace).");
  }
  return taken;
}

LabState initial_state(UpRequest& r, std::vector<std::string> adopted) {
  LabState state;
  state.lab = r.plan.lab;
  state.source = r.plan.source_file;
  state.phase = "applying";
  state.controller_pid = getpid();
  state.created_at = now_iso8601();
  state.time_scale = r.time_scale;
  state.start_at_unix_s = r.start_at_unix_s;
  state.plan = std::move(r.plan);
  state.host = r.host;
  state.placement = r.placement;
  if (r.adopt) state.adopted = std::move(adopted);
  return state;
}

// The applier's hooks: each namespace recorded before it exists and after, and the steps
// acting only in adopted namespaces listed (`down` undoes those instead of deleting).
ApplyHooks recording_hooks(const LabStore& store, LabState& state, const InjectedFaults& faults) {
  ApplyHooks hooks;
  hooks.before_create_namespace = [&store, &state](const CreateNamespace& s) {
    state.namespaces.push_back({s.ns, 0});
    store.record_namespace(state.lab, state.namespaces.back());
  };
  hooks.after_create_namespace = [&store, &state](const CreateNamespace& s, uint64_t inode) {
    state.namespaces.back() = {s.ns, inode};
    store.record_namespace(state.lab, state.namespaces.back());
  };
  hooks.after_rollback_namespace = [&state](const CreateNamespace& s) {
    std::erase_if(state.namespaces, [&](const auto& r) { return r.name == s.ns; });
  };
  hooks.before_step = [&store, &state, faults](size_t index, const Step& step) {
    if (static_cast<long>(index) + 1 == faults.stop_at_step) raise(SIGSTOP);
    if (static_cast<long>(index) + 1 == faults.fail_at_step)
      throw std::runtime_error("injected failure");
    crash_point("up:plan step");
    if (acts_only_in(step, state.adopted)) {
      state.adopted_steps.push_back(index);
      store.save(state);
    }
  };
  return hooks;
}

}  // namespace

UpReport bring_up_lab(UpRequest request, const LabStore& store, const StopSignals& stop) {
  UpReport report;
  auto lap = std::chrono::steady_clock::now();
  const auto phase = [&](const std::string& name) {
    const auto now = std::chrono::steady_clock::now();
    report.phases.emplace_back(name, std::chrono::duration<double>(now - lap).count());
    lap = now;
  };
  refuse_without_netem(request.plan);
  const std::string lab = request.plan.lab;
  report.lock = store.lock(lab, /*wait=*/false);
  if (!report.lock) throw UpRefused("another testbed command is working on lab '" + lab + "'");
  if (store.has_state(lab)) throw UpRefused(refusal(store, lab));
  LibnlKernel kernel;
  std::vector<std::string> taken;
  try {
    taken = namespaces_taken(request.plan, kernel, request.adopt);
  } catch (const UpRefused&) {
    store.remove(lab);  // the lock's file: nothing else of the lab was written
    throw;
  }
  LabState& state = report.state;
  state = initial_state(request, std::move(taken));
  const Plan& plan = state.plan;
  const Plan& whole = request.whole ? *request.whole : plan;
  store.save_plan(plan.lab, plan);
  if (!request.host.empty()) store.save_whole_plan(plan.lab, whole);
  store.save(state);
  if (request.host_key)
    write_curve_key_file(store.host_key_path(plan.lab), *request.host_key,
                         "host " + request.host + " of lab " + plan.lab);
  phase("checks and plan.json");

  const InjectedFaults faults = injected_faults();
  const ApplyHooks hooks = recording_hooks(store, state, faults);
  const auto start = std::chrono::steady_clock::now();
  try {
    const ApplyResult result = Applier(kernel, hooks, &stop.stopping()).apply(plan);
    report.kernel_changes = result.changed;
    for (const auto& [op, t] : result.by_op)
      report.phases.emplace_back(op + " x" + std::to_string(t.steps), t.seconds);
    phase("kernel changes (all)");
    try {
      crash_point("up:kernel changes made");
      create_identities(plan, whole, store, state);
      phase("hostnames and hosts files");
      create_node_cgroups(plan, store, state);
      phase("nodes' compute (cgroups)");
      start_processes(plan, store, state);
      phase("delay lines and timeline");
      report.watch = start_observability(store, state, request.observability);
      phase("exporter and dashboards");
      if (faults.stop_after_start) raise(SIGSTOP);
      if (stop.stopping()) throw std::runtime_error("interrupted by a signal");
    } catch (const std::exception& e) {
      const TeardownReport undone = teardown_lab(state, kernel);
      throw ApplyError(e.what(), undone.errors);
    }
  } catch (const ApplyError& e) {
    if (e.rollback_errors().empty()) {
      store.remove(plan.lab);
    } else {
      state.phase = "failed";
      store.save(state);
    }
    throw;
  }
  crash_point("up:all started, phase not yet up");
  state.phase = "up";
  store.save(state);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace testbed
