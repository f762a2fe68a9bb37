#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/hosts/host_report.h"
#include "controller/lab/fit/fit_decision.h"
#include "controller/lab/fit/scale_rates.h"
#include "controller/lab/planner.h"
#include "controller/lab/privileges.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/profile_locator.h"
#include "controller/topology/units.h"
#include "netns/capabilities.h"
#include "netns/cpu_allowance.h"

namespace testbed::cli {

bool lacks_privileges(const std::string& verb) {
  const std::string why = missing_privileges(verb);
  if (!why.empty()) std::cerr << why << "\n";
  return !why.empty();
}

ImpairmentBackend parse_backend_option(const std::string& value) {
  if (const auto b = parse_backend_name(value)) return *b;
  throw UsageError("--backend must be auto, netem or delayline, not '" + value + "'");
}

void parse_fit_option(const std::string& value, PlanOptions& options) {
  if (const auto m = parse_fit_mode(value)) {
    options.fit = *m;
    return;
  }
  double factor = 0;
  try {
    size_t used = 0;
    factor = std::stod(value, &used);
    if (used != value.size()) factor = 0;
  } catch (const std::exception&) {
    factor = 0;
  }
  if (!(factor >= kMinFitFactor && factor <= 1))
    throw UsageError("--fit must be scale, refuse, off or a factor in [" +
                     format_factor(kMinFitFactor) + ", 1], not '" + value + "'");
  options.fit = FitMode::kFixed;
  options.fit_factor = factor;
}

namespace {

// The plan fitted to this machine's budget (controller/lab/fit): the demand of the plan as
// written, and when it exceeds the budget and the user asked for scale, the topology's rates
// scaled and planned again. nullopt when refused (the reason printed).
std::optional<Plan> fit_plan(Plan plan, Topology& topo, bool netem, const PlanOptions& options) {
  const FitMode mode = options.fit.value_or(FitMode::kOff);
  std::optional<EmulationBudget> budget;
  try {
    budget = load_budget(budget_path());
  } catch (const std::exception& e) {
    if (options.fit) throw UsageError(std::string("--fit: ") + e.what());
    std::cerr << "testbed: note: " << e.what() << "\n";
  }
  const CpuAllowance cpus = read_cpu_allowance();
  const Fit fit = decide_fit(mode, estimate_demand(plan), budget, cpus.effective(), cpus.describe(),
                             options.fit_factor);
  if (fit.refused) {
    std::cerr << "testbed: --fit " << fit_mode_name(mode) << ": refused: " << fit.why
              << "; nothing was changed\n";
    return std::nullopt;
  }
  if (fit.factor < 1) {
    scale_topology_rates(topo, fit.factor);
    plan = make_plan(topo, netem);
  }
  if (options.fit || budget) plan.fit = fit_to_json(fit);
  return plan;
}

}  // namespace

std::optional<Plan> load_plan(const std::string& profile, const PlanOptions& options) {
  std::string path;
  try {
    path = locate_profile(profile);
  } catch (const std::exception& e) {
    std::cerr << "testbed: cannot find profile: " << e.what() << "\n";
    return std::nullopt;
  }
  try {
    Topology topo = parse_profile_file(path);
    // --backend first, then TESTBED_BACKEND (one setting for every lab a script or a test
    // suite brings up: the kernel tests run the same suite once per backend), then the
    // profile's own `backend:`.
    if (options.backend) {
      topo.backend = *options.backend;
    } else if (const char* env = std::getenv("TESTBED_BACKEND"); env && *env) {
      topo.backend = parse_backend_option(env);
    }
    // Only `auto` needs to know what the kernel has.
    const bool netem = topo.backend == ImpairmentBackend::kAuto && detect_netem().available;
    std::optional<Plan> plan = make_plan(topo, netem);
    if (options.fit_to_machine) plan = fit_plan(std::move(*plan), topo, netem, options);
    if (plan) plan->release_window_us = options.release_window_us;
    return plan;
  } catch (const ValidationError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    std::cerr << e.diagnostics().size() << " error" << (e.diagnostics().size() == 1 ? "" : "s")
              << "; nothing was changed\n";
    return std::nullopt;
  }
}

std::optional<HostPlacement> load_host_placement(const std::string& spec, const Plan& plan) {
  try {
    return resolve_host_placement(spec, plan);
  } catch (const ValidationError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    return std::nullopt;
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--hosts: ") + e.what());
  }
}

PlanSlice host_slice(const Plan& plan, const HostPlacement& placement, const std::string& host) {
  try {
    return slice_for_host(plan, placement, host);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--host: ") + e.what());
  }
}

}  // namespace testbed::cli
