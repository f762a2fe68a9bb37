// A node's processes crashed or paused, by the timeline (a node's `schedule`) or by hand
// (`testbed node`). The processes are the lab's records (lab_state.h) of the node's job:
// the agents of a `train`, the ranks of a `launch` (each rank's whole process group), and
// what `exec` started; never the lab's own processes (delay lines, timeline, exporter), which
// are the emulator and not the data center. Each is signalled only while its recorded start
// time still matches, so a pid since reused by another process is never touched.
//
// crash  SIGKILL: nothing of the node's job survives, as when a server loses power.
// pause  SIGSTOP: the processes stay, their sockets and the kernel's TCP state too (the
//        peers' connections do not break, their sends queue and then time out), as a
//        machine frozen by a hypervisor or a long stop-the-world pause.
// resume SIGCONT.
// restart no signal: after a crash, the launch whose ranks on the node were killed runs
//        each again, same command and environment (job_runner.h watches nodes.json for
//        it), as a server back up whose elastic job rejoins. The agents of a `train` are
//        not restarted: the built-in systems have no rejoin (docs/faults.md).
// A node's state (running, paused, crashed) is kept in the lab's nodes.json for `status`
// and the exporter. A crash is a state until the node next gets processes (a new `train`
// or `launch` starts them, or a restart): status then shows them as they are. A crash is
// recorded before its signals, so a launch that sees its rank killed already finds why.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "controller/lab/lab_state.h"
#include "controller/topology/topology.h"

namespace testbed {

// The processes of `node`'s job among `state`'s records (owner_pid set: a train's, a
// launch's or an exec's); the lab's own (owner 0) are left out.
std::vector<ProcessRecord> node_job_processes(const LabState& state, const std::string& node);

// Sends signals to recorded processes; a fake in tests.
class ProcessSignaller {
 public:
  virtual ~ProcessSignaller() = default;
  // `sig` to p (its group when p.group), if p is still the process recorded. Returns
  // whether it was.
  virtual bool signal(const ProcessRecord& p, int sig) = 0;
};

// The real one: kill(2) after checking /proc/PID/stat's start time; a stop or continue
// returns once the process shows it (bounded), so a paused node is paused when the verb ends.
class KillSignaller : public ProcessSignaller {
 public:
  bool signal(const ProcessRecord& p, int sig) override;
};

struct NodeFaultResult {
  std::string node;
  NodeEvent::Kind kind = NodeEvent::Kind::kCrash;
  int processes = 0;      // signalled (still the ones recorded); a restart's: ranks to run
  std::vector<int> pids;  // of those
  int ranks = 0;          // launched ranks among them (each leads its group)
};

// A restart of a node whose last event was not a crash of launched ranks: refused before
// anything is written.
class NothingToRestart : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Applies `kind` to `node`'s job processes in `state`. A pause also continues nothing and a
// resume stops nothing: each is one signal to each process. A restart signals nothing.
NodeFaultResult apply_node_fault(const LabState& state, const std::string& node,
                                 NodeEvent::Kind kind, ProcessSignaller& signaller);

// nodes.json: node -> {state: running|paused|crashed, event, at_unix_s, processes, pids,
// restarts, crash: {pids, ranks, restarts}}. `restarts` counts the node's restarts; `crash`
// is its last crash, kept through later events: the pids it killed and the restart count
// then, so a launch tells its rank killed by the crash, and when a restart follows it.
void record_node_state(const std::string& lab_dir, const NodeFaultResult& r, double at_unix_s);
nlohmann::json read_node_states(const std::string& lab_dir);
// The launched ranks a restart of `node` would run again: its last crash's, while that
// crash is the node's last event; else 0.
int restartable_ranks(const nlohmann::json& states, const std::string& node);
// Each node of `state`'s plan and the state it is in now: its last event's (nodes.json),
// unless the node has since got processes that event did not touch (a new `train` or
// `launch` after a crash), or was paused and its paused processes have all ended: then
// running. `alive` tells a recorded process still running.
std::map<std::string, std::string> node_states_now(
    const LabState& state, const nlohmann::json& recorded,
    const std::function<bool(const ProcessRecord&)>& alive);
const char* node_state_after(NodeEvent::Kind kind);  // "crashed", "paused", "running"
// The state a timeline.csv row gives after the event: node_state_after's, but "restarted"
// for a restart, so the exporter counts restarts apart from resumes.
const char* node_row_state(NodeEvent::Kind kind);

// The same for lab `lab`, as `status` and the exporter show it: every node of `plan`
// running, unless nodes.json says otherwise (the lab's records are read only then).
std::map<std::string, std::string> lab_node_states(const LabStore& store, const std::string& lab,
                                                   const Plan& plan);

// What the timeline calls at a node's scheduled event; a fake records them in tests.
class NodeFaulter {
 public:
  virtual ~NodeFaulter() = default;
  virtual NodeFaultResult apply(const std::string& node, NodeEvent::Kind kind) = 0;
};

// The real one: the lab's records read afresh, the processes signalled, nodes.json written
// (a crash's before its signals too). A restart with nothing to restart throws
// NothingToRestart.
class LabNodeFaulter : public NodeFaulter {
 public:
  LabNodeFaulter(const LabStore& store, std::string lab, ProcessSignaller& signaller);
  NodeFaultResult apply(const std::string& node, NodeEvent::Kind kind) override;

 private:
  const LabStore& store_;
  std::string lab_;
  ProcessSignaller& signaller_;
};

}  // namespace testbed
