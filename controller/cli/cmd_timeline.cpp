// testbed _timeline LAB: the lab's schedule runner, started by `up` when the profile has
// schedules and ended by `down`. Not for people to call; it is listed nowhere.
#include <atomic>
#include <csignal>
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

namespace testbed::cli {
namespace {

std::atomic<bool> g_stop{false};  // set by SIGTERM from `down`; signal handlers need a global
void on_stop(int) {
  g_stop = true;
}

}  // namespace

int run_timeline(const Argv& argv) {
  Args args(argv, {}, {});
  args.at_most(1, "testbed _timeline LAB");
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, on_stop);
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
  if (state.plan.contains("reroute")) rerouter.emplace(kernel, dir, state.plan);
  TimelineOptions options{state.time_scale, dir, state.start_at_unix_s, {}};
  if (any_node_group(state.cgroups)) {
    // A schedule's cpus events (docs/compute.md), logged by the timeline itself.
    std::map<std::string, std::string> ns_of;
    for (const auto& n : state.plan.value("nodes", nlohmann::json::array()))
      ns_of[n.value("name", "")] = n.value("namespace", "");
    options.set_cpus = [layout = host_cgroup_layout(), ns_of](const std::string& node,
                                                              std::optional<double> cpus) {
      set_node_cpus(layout, ns_of.at(node), cpus);
    };
  }
  Timeline(live_directions(state.plan, read_current(dir)), changer, options, g_stop,
           live_node_schedules(state.plan), &faulter, rerouter ? &*rerouter : nullptr)
      .run();
  return kExitOk;
}

}  // namespace testbed::cli
