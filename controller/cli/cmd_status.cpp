// testbed status [LAB] [--json] [--routes]: the labs that exist, or one lab's nodes, links
// with their shaping (configured, and as the kernel reports it with counters) and routes.
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/plan_table.h"
#include "controller/lab/privileges.h"
#include "controller/observe/lab_status.h"
#include "netns/libnl_kernel.h"

namespace testbed::cli {

int run_status(const Argv& argv) {
  Args args(argv, {"json", "ready", "routes"}, {});
  args.at_most(1, "testbed status [LAB] [--json] [--routes] [--ready]");
  LabStore store;
  if (args.flag("ready")) {
    // For probes (a pod's startupProbe): the exit status alone says whether the lab, named
    // or the only one, is up; one still being applied or torn down is not.
    try {
      return store.load(store.resolve(args.positional(0))).phase == "up" ? kExitOk : kExitFailure;
    } catch (const std::exception&) {
      return kExitFailure;
    }
  }
  std::vector<std::string> labs;
  if (!args.positional(0).empty()) {
    labs.push_back(store.resolve(args.positional(0)));
  } else {
    for (const auto& l : store.labs()) {
      if (store.has_state(l)) labs.push_back(l);
    }
  }
  const bool one = !args.positional(0).empty();
  if (!one && !args.flag("json")) {
    // The list of labs says what each is from its state alone: at a glance, without reading
    // a kernel counter (a 10,000-node lab's took 12 s).
    if (labs.empty()) {
      std::cout << "no lab is up\n";
      return kExitOk;
    }
    TextTable t({"LAB", "PHASE", "NODES", "LINKS", "SOURCE"});
    for (const auto& lab : labs) {
      const LabState s = store.load(lab, LabStore::PlanSteps::kSkipped);
      t.add({s.lab, s.phase, std::to_string(s.plan.nodes.size()),
             std::to_string(s.plan.links.size()), s.source});
    }
    t.print(std::cout, "");
    return kExitOk;
  }
  const bool live = missing_privileges("status").empty();
  std::unique_ptr<LibnlKernel> kernel = live ? std::make_unique<LibnlKernel>() : nullptr;
  if (kernel) kernel->begin_read_snapshot();  // status changes nothing
  std::vector<LabStatus> out;
  // Tables list a small lab's routes unasked; JSON keeps one shape: listed with --routes.
  const RouteListing routes = args.flag("routes") ? RouteListing::kAll
                              : args.flag("json") ? RouteListing::kNone
                                                  : RouteListing::kFew;
  for (const auto& lab : labs) out.push_back(lab_status(store, lab, kernel.get(), routes));
  if (args.flag("json")) {
    if (one) {
      write_status_json(std::cout, out[0]);
      std::cout << "\n";
      return kExitOk;
    }
    // Every lab, as a list (as dump(2) writes one).
    std::cout << (out.empty() ? "[]" : "[");
    for (size_t i = 0; i < out.size(); ++i) {
      std::cout << (i ? ",\n  " : "\n  ");
      write_status_json(std::cout, out[i], 1);
    }
    std::cout << (out.empty() ? "\n" : "\n]\n");
    return kExitOk;
  }
  print_lab_status(std::cout, out[0]);
  return kExitOk;
}

}  // namespace testbed::cli
