// The verbs of the `testbed` CLI, one file each. Each returns the process exit status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "controller/hosts/plan_slices.h"
#include "controller/lab/fit/fit_decision.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/plan.h"
#include "controller/runs/child_process.h"  // program_path

namespace testbed::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // the operation failed (kernel error, missing privilege)
constexpr int kExitInvalid = 2;  // bad input or usage: nothing was changed

using Argv = std::vector<std::string>;

int run_validate(const Argv& args);
int run_plan(const Argv& args);
int run_placement(const Argv& args);
int run_up(const Argv& args);
int run_down(const Argv& args);
int run_status(const Argv& args);
int run_exec(const Argv& args);
int run_launch(const Argv& args);
int run_agents(const Argv& args);
int run_keys(const Argv& args);
// `testbed _rank -- CMD...`: a launched rank's supervisor (rank_supervisor.h); hidden.
int run_rank(const Argv& args);
int run_clean(const Argv& args);
int run_doctor(const Argv& args);
int run_link(const Argv& args);
int run_node(const Argv& args);
int run_partition(const Argv& args);
int run_train(const Argv& args);
int run_timeline(const Argv& args);
int run_traffic(const Argv& args);
int run_flows(const Argv& args);
int run_exporter(const Argv& args);
int run_report(const Argv& args);
int run_run(const Argv& args);
int run_regress(const Argv& args);
int run_export(const Argv& args);
int run_import(const Argv& args);
int run_capture(const Argv& args);

// Prints the one-line reason and returns true when this process may not act on the kernel.
bool lacks_privileges(const std::string& verb);

struct PlanOptions {
  std::optional<ImpairmentBackend> backend;  // overrides the profile's `backend`
  std::optional<int64_t> release_window_us;  // caps the delay lines' release window
  // --fit (controller/lab/fit/fit_decision.h); unset: off, with the fit recorded only when
  // a budget was measured (so that a run over it says so).
  std::optional<FitMode> fit;
  double fit_factor = 1.0;  // --fit F: kFixed's
  // `up`: the plan fitted to this machine (its measured budget, its CPUs). The verbs that
  // only read a profile (validate, plan, export) leave it off: their answer depends on the
  // profile alone, not on the machine's files.
  bool fit_to_machine = false;
};

// Parses --fit's value (scale, refuse, off or a factor in (0, 1]) into `options`; throws
// UsageError.
void parse_fit_option(const std::string& value, PlanOptions& options);

// Parses --backend's value; throws UsageError.
ImpairmentBackend parse_backend_option(const std::string& value);

// Locates, parses, validates and plans a profile; prints every diagnostic to stderr and
// returns nullopt when the profile is invalid.
std::optional<Plan> load_plan(const std::string& profile, const PlanOptions& options = {});
// --hosts N|PLACEMENT (plan, up): the placement's file errors are printed and give nullopt;
// a bad value is a UsageError, as is a --host the placement does not name.
std::optional<HostPlacement> load_host_placement(const std::string& spec, const Plan& plan);
PlanSlice host_slice(const Plan& plan, const HostPlacement& placement, const std::string& host);

// Tears down one lab whose lock the caller holds (down, clean, up --foreground's end);
// `verb` prefixes its messages.
int remove_lab(const LabStore& store, LabState state, const std::string& verb);

}  // namespace testbed::cli
