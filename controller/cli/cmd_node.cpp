// testbed node set LAB NODE --cpus X|all: the node's CPU share, in place (docs/compute.md).
// testbed node crash|pause|resume|restart|leave|join LAB NODE [--for D]: a fault of a node's
// processes by hand, as a node's `schedule` gives it (node_faults.h says which processes and how).
// A restart with nothing to restart (the node's last event is not a crash of launched
// ranks) is refused with exit 2, nothing written.
// `pause --for D` waits D, then resumes; an interrupt (Ctrl-C, SIGTERM) resumes at once, so
// the verb never leaves a node stopped behind it. Each event is logged in timeline.csv.
#include <iostream>

#include "controller/cli/args.h"
#include "controller/cli/commands.h"
#include "controller/cli/timed_wait.h"
#include "controller/cli/verbs.h"
#include "controller/dynamics/node_compute_control.h"
#include "controller/dynamics/node_faults.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/lab_state.h"
#include "controller/topology/node_events.h"
#include "controller/topology/units.h"

namespace testbed::cli {
namespace {

void apply_and_log(LabNodeFaulter& faulter, const std::string& dir, const std::string& node,
                   NodeEvent::Kind kind) {
  const double at = lab_time_s(dir);
  const NodeFaultResult r = faulter.apply(node, kind);
  append_timeline_row(dir, node_row(at, lab_time_s(dir), node, node_row_state(kind), ""));
  std::cout << "node " << node << ": " << node_event_name(kind) << ", " << r.processes
            << (r.processes == 1 ? " process" : " processes") << " "
            << (kind == NodeEvent::Kind::kRestart ? "to run again (by their launch)"
                                                  : node_state_after(kind))
            << "\n"
            << std::flush;
}

// `node set LAB NODE --cpus X|all`: the node's CPU share, in place.
int set_node(const Args& args) {
  const auto text = args.option("cpus");
  if (!text) throw UsageError("node set needs --cpus X (a share, e.g. 0.5) or --cpus all");
  const auto cpus = parse_cpus_setting(*text);
  if (!cpus) throw UsageError("--cpus: '" + *text + "' is not a share of at least 0.01, or all");
  if (lacks_privileges("node")) return kExitFailure;
  LabStore store;
  const std::string lab = store.resolve(args.positional(1));
  const LabState state = store.load(lab);
  try {
    set_lab_node_cpus(state, store.dir(lab), args.positional(2), *cpus);
  } catch (const NoComputeGroups& e) {
    std::cerr << "testbed node: " << e.what() << "\n";
    return kExitInvalid;
  }
  std::cout << "node " << args.positional(2) << ": " << cpus_state(*cpus) << "\n";
  return kExitOk;
}

}  // namespace

int run_node(const Argv& argv) {
  const std::string usage = usage_of("node");
  Args args(argv, {}, {"for", "cpus"});
  args.at_most(3, usage);
  if (args.positionals().size() != 3) throw UsageError("usage: " + usage);
  if (args.positional(0) == "set") return set_node(args);
  if (args.option("cpus")) throw UsageError("--cpus goes with node set");
  const auto kind = parse_node_event_kind(args.positional(0));
  if (!kind || *kind == NodeEvent::Kind::kCpus)
    throw UsageError("unknown event '" + args.positional(0) + "'; usage: " + usage);
  std::optional<Duration> length;
  if (const auto text = args.option("for")) {
    if (*kind != NodeEvent::Kind::kPause) throw UsageError("--for is a pause's length");
    std::string why;
    length = parse_duration(*text, why);
    if (!length || length->us <= 0)
      throw UsageError("--for: " + (why.empty() ? "expected a length like 5s" : why));
  }
  if (lacks_privileges("node")) return kExitFailure;

  LabStore store;
  const std::string lab = store.resolve(args.positional(1));
  const std::string node = args.positional(2);
  const LabState state = store.load(lab);
  if (!plan_node(state.plan, node)) {
    std::cerr << "testbed node: lab " << lab << " has no node '" << node
              << (state.host.empty() ? "" : "' on this host") << "'\n";
    return kExitInvalid;
  }
  const std::string dir = store.dir(lab);
  KillSignaller signaller;
  LabNodeFaulter faulter(store, lab, signaller);
  try {
    apply_and_log(faulter, dir, node, *kind);
  } catch (const NothingToRestart& e) {
    std::cerr << "testbed node: lab " << lab << ": " << e.what() << "\n";
    return kExitInvalid;
  }
  if (!length) return kExitOk;
  const int sig = wait_or_signal(length->us);
  apply_and_log(faulter, dir, node, NodeEvent::Kind::kResume);
  return sig == 0 ? kExitOk : 128 + sig;
}

}  // namespace testbed::cli
