// testbed _timeline LAB: the lab's schedule runner, started by `up` when the profile has
// schedules and ended by `down`. Not for people to call; it is listed nowhere.
#include <iostream>
#include <map>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/dynamics/link_control.h"
#include "controller/dynamics/rerouter.h"
#include "controller/dynamics/timeline.h"
#include "controller/lab/lab_state.h"
#include "netns/job_cgroup.h"
#include "netns/libnl_kernel.h"
#include "netns/node_cgroup.h"
#include "netns/stop_signals.h"

namespace testbed::cli {
namespace {}  // namespace

int run_timeline(const Argv& argv) {
  Args args(argv, {}, {});
  args.at_most(1, "testbed _timeline LAB");
  StopSignals stop_signals;  // netns/stop_signals.h
  LabStore store;
  const std::string lab = args.positional(0);
  const LabState state = store.load(lab);
  const std::string dir = store.dir(lab);
  LabLinkChanger lab_changer(dir, state.plan);
  LinkChanger& changer = lab_changer.get();
  KillSignaller signaller;
  LabNodeFaulter faulter(store, lab, signaller);
  LibnlKernel kernel;
  std::optional<Rerouter> rerouter;
  if (state.plan.reroute_convergence_us) rerouter.emplace(kernel, dir, state.plan);
  TimelineOptions options{state.time_scale, dir, state.start_at_unix_s, {}};
  if (any_node_group(state.cgroups)) {
    // A schedule's cpus events (docs/compute.md), logged by the timeline itself.
    std::map<std::string, std::string> ns_of;
    for (const auto& n : state.plan.nodes) ns_of[n.name] = n.ns;
    options.set_cpus = [layout = host_cgroup_layout(), ns_of](const std::string& node,
                                                              std::optional<double> cpus) {
      set_node_cpus(layout, ns_of.at(node), cpus);
    };
  }
  Timeline(live_directions(state.plan, read_current(dir)), changer, options,
           stop_signals.stopping(), live_node_schedules(state.plan), &faulter,
           rerouter ? &*rerouter : nullptr)
      .run();
  return kExitOk;
}

}  // namespace testbed::cli
