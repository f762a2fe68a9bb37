#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/hosts/host_report.h"
#include "controller/lab/planner.h"
#include "controller/lab/privileges.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/profile_locator.h"
#include "netns/capabilities.h"

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
    Plan plan = make_plan(topo, netem);
    plan.release_window_us = options.release_window_us;
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
