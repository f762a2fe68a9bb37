// testbed clean [--all]: removes what crashed runs left behind, found only through state
// files: labs whose `up` or `down` never finished and whose controller is gone, and in labs
// that are up, the processes of a train or launch killed outright (its agents, its ranks),
// and the job slots, packet marks and control groups of such a job (docs/jobs.md), which
// leaves such a lab as `up` made it. With --all, labs that are up are removed too.
// Nothing without a state record is touched.
#include <filesystem>
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/teardown.h"
#include "controller/observe/job_accounting.h"

namespace testbed::cli {

int run_clean(const Argv& argv) {
  Args args(argv, {"all"}, {});
  args.at_most(0, "testbed clean [--all]");
  if (lacks_privileges("clean")) return kExitFailure;
  LabStore store;
  int status = kExitOk, cleaned = 0;
  for (const auto& lab : store.labs()) {
    auto lock = store.lock(lab, /*wait=*/false);
    if (!lock) {
      std::cout << "lab " << lab << ": a running testbed command holds it; skipped\n";
      continue;
    }
    if (!store.has_state(lab)) {
      // Killed before its first state write: nothing was created yet but the directory.
      store.remove(lab);
      std::cout << "lab " << lab << ": removed its directory, left by a testbed command "
                << "killed before it made anything\n";
      ++cleaned;
      continue;
    }
    LabState state = store.load(lab, LabStore::PlanSteps::kIfAdopted);
    if (state.phase == "up" && !args.flag("all")) {
      const size_t records = state.processes.size();
      const int ended = end_orphans(state);
      // Then the dead jobs' slots, marks and groups, now that their processes are gone
      // (docs/jobs.md).
      IptablesJobMarks marks;
      const size_t groups = state.cgroups.size();
      if (const int freed = take_back_dead_jobs(store.dir(lab), state, marks); freed > 0) {
        store.save(state);
        std::cout << "lab " << lab << ": took back " << freed << " job slot(s) and "
                  << groups - state.cgroups.size() << " control group(s) of jobs that are gone\n";
        ++cleaned;
      }
      if (records != state.processes.size()) {
        store.save(state);
        // The control socket of the train that died; the next train binds its own.
        std::filesystem::remove(store.dir(lab) + "/agents.sock");
        std::cout << "lab " << lab << ": ended " << ended << " processes left by a testbed "
                  << "command that is gone (a train's agents, a launch's ranks), forgot "
                  << records - state.processes.size() << " records\n";
        ++cleaned;
      }
      std::cout << "lab " << lab << " is up; left alone (testbed down " << lab
                << ", or clean --all)\n";
      continue;
    }
    if (remove_lab(store, state, "clean") != kExitOk) status = kExitFailure;
    ++cleaned;
  }
  if (cleaned == 0) std::cout << "nothing to clean\n";
  return status;
}

}  // namespace testbed::cli
