// testbed down [LAB]: removes what the lab recorded (its processes and namespaces, and with
// the namespaces every link, address, route and qdisc inside them), then its state. In
// namespaces a slice adopted (`up --adopt`), it undoes the slice's changes one by one.
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/teardown.h"
#include "netns/libnl_kernel.h"

namespace testbed::cli {

int remove_lab(const LabStore& store, LabState state, const std::string& verb) {
  state.phase = "removing";
  store.save(state);
  LibnlKernel kernel;
  const TeardownReport report = teardown_lab(state, kernel);
  for (const auto& s : report.skipped) std::cerr << "testbed " << verb << ": skipped " << s << "\n";
  for (const auto& e : report.errors) std::cerr << "testbed " << verb << ": " << e << "\n";
  if (!report.errors.empty()) {
    std::cerr << "lab " << state.lab << " was not removed completely; its state is kept\n";
    return kExitFailure;
  }
  store.remove(state.lab);
  if (!state.host.empty()) std::cout << "host " << state.host << ": ";
  std::cout << "lab " << state.lab << " is down: " << report.namespaces_deleted
            << " namespaces and " << report.processes_ended << " processes removed";
  if (!state.adopted.empty()) {
    std::cout << "; " << report.steps_undone << " changes undone in " << state.adopted.size()
              << " adopted namespaces, which are kept";
  }
  std::cout << "\n";
  return kExitOk;
}

int run_down(const Argv& argv) {
  Args args(argv, {}, {});
  args.at_most(1, "testbed down [LAB]");
  if (lacks_privileges("down")) return kExitFailure;
  LabStore store;
  const std::string lab = store.resolve(args.positional(0));
  auto lock = store.lock(lab, /*wait=*/true);
  return remove_lab(store, store.load(lab, LabStore::PlanSteps::kIfAdopted), "down");
}

}  // namespace testbed::cli
