#include "controller/dynamics/node_faults.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "controller/dynamics/lab_json_file.h"
#include "controller/lab/teardown.h"
#include "controller/topology/node_events.h"
#include "netns/named_netns.h"

namespace testbed {

std::vector<ProcessRecord> node_job_processes(const LabState& state, const std::string& node) {
  std::vector<ProcessRecord> out;
  for (const auto& p : state.processes)
    if (p.node == node && p.owner_pid != 0 && p.pid > 0) out.push_back(p);
  return out;
}

namespace {

// kill(2) returns once the signal is queued; the target stops (or continues) when it is next
// scheduled, which on a loaded machine is later. A pause (resume) verb promises the node is
// stopped (running) when it returns, so it waits for the recorded process to show it.
// Two seconds bounds the wait: far beyond a scheduler's delay, short of hanging the verb.
void await_stop_state(int pid, bool stopped) {
  constexpr auto kStep = std::chrono::milliseconds(5);
  for (int i = 0; i < 400; ++i) {  // 400 x 5 ms = the 2 s bound
    const char s = process_state(pid);
    if (s == '\0' || s == 'Z' || s == 'X' || (s == 'T') == stopped) return;
    std::this_thread::sleep_for(kStep);
  }
}

}  // namespace

bool KillSignaller::signal(const ProcessRecord& p, int sig) {
  if (p.start_time == 0 || process_start_time(p.pid) != p.start_time) return false;
  // A launched rank leads a group made for it alone (setsid): the group is its processes.
  if (kill(p.group ? -p.pid : p.pid, sig) != 0) return false;
  if (sig == SIGSTOP || sig == SIGCONT) await_stop_state(p.pid, sig == SIGSTOP);
  return true;
}

const char* node_state_after(NodeEvent::Kind kind) {
  switch (kind) {
    case NodeEvent::Kind::kCrash:
      return "crashed";
    case NodeEvent::Kind::kPause:
      return "paused";
    case NodeEvent::Kind::kResume:
    case NodeEvent::Kind::kRestart:
    case NodeEvent::Kind::kCpus:  // a share's change is no fault (node_compute_control.h)
      return "running";
    case NodeEvent::Kind::kLeave:  // drained by an elastic run (runs/diloco/elastic_membership.h)
      return "left";
    case NodeEvent::Kind::kJoin:
      return "running";
  }
  return "running";
}

const char* node_row_state(NodeEvent::Kind kind) {
  return kind == NodeEvent::Kind::kRestart ? "restarted" : node_state_after(kind);
}

NodeFaultResult apply_node_fault(const LabState& state, const std::string& node,
                                 NodeEvent::Kind kind, ProcessSignaller& signaller) {
  NodeFaultResult r{node, kind, 0, {}, 0};
  if (kind == NodeEvent::Kind::kRestart) return r;  // the launch runs its ranks again
  if (kind == NodeEvent::Kind::kCpus) return r;     // not a signal: node_compute_control.h
  // Requests an elastic run reads, not signals.
  if (kind == NodeEvent::Kind::kLeave || kind == NodeEvent::Kind::kJoin) return r;
  const int sig = kind == NodeEvent::Kind::kCrash   ? SIGKILL
                  : kind == NodeEvent::Kind::kPause ? SIGSTOP
                                                    : SIGCONT;
  for (const auto& p : node_job_processes(state, node)) {
    if (!signaller.signal(p, sig)) continue;
    ++r.processes;
    r.pids.push_back(p.pid);
    r.ranks += p.group ? 1 : 0;
  }
  return r;
}

std::map<std::string, std::string> node_states_now(
    const LabState& state, const nlohmann::json& recorded,
    const std::function<bool(const ProcessRecord&)>& alive) {
  std::map<std::string, std::string> out;
  for (const auto& n : state.plan.nodes) {
    const std::string& name = n.name;
    const auto it = recorded.find(name);
    std::string now = it == recorded.end() ? "running" : it->value("state", "running");
    if (now != "running") {
      // Processes the event did not touch (a run started since) run; a pause whose
      // processes have all ended (their run is over) holds nothing stopped any more.
      const auto touched = it->value("pids", std::vector<int>{});
      bool touched_alive = false;
      for (const auto& p : node_job_processes(state, name)) {
        const bool was_touched = std::find(touched.begin(), touched.end(), p.pid) != touched.end();
        if (!alive(p)) continue;
        if (!was_touched) now = "running";
        touched_alive = touched_alive || was_touched;
      }
      if (now == "paused" && !touched_alive) now = "running";
    }
    out[name] = now;
  }
  return out;
}

std::map<std::string, std::string> lab_node_states(const LabStore& store, const std::string& lab,
                                                   const Plan& plan) {
  const nlohmann::json recorded = read_node_states(store.dir(lab));
  if (recorded.empty()) {
    std::map<std::string, std::string> out;
    for (const auto& n : plan.nodes) out[n.name] = "running";
    return out;
  }
  // The processes as now recorded (a restarted node's are new); the plan's steps are not
  // needed, and the exporter asks at every sample.
  return node_states_now(store.load(lab, LabStore::PlanSteps::kSkipped), recorded,
                         [](const ProcessRecord& p) {
                           return p.start_time != 0 && process_start_time(p.pid) == p.start_time;
                         });
}

void record_node_state(const std::string& lab_dir, const NodeFaultResult& r, double at_unix_s) {
  // Written by the timeline and by `testbed node` alike: one at a time.
  LabFileLock lock(lab_dir + "/nodes.lock");
  nlohmann::json all = read_json_object(lab_dir + "/nodes.json");
  const nlohmann::json before = all.value(r.node, nlohmann::json::object());
  int restarts = before.value("restarts", 0);
  nlohmann::json crash = before.value("crash", nlohmann::json());
  if (r.kind == NodeEvent::Kind::kCrash)
    crash = {{"pids", r.pids}, {"ranks", r.ranks}, {"restarts", restarts}};
  if (r.kind == NodeEvent::Kind::kRestart) ++restarts;
  all[r.node] = {{"state", node_state_after(r.kind)},
                 {"event", node_event_name(r.kind)},
                 {"at_unix_s", at_unix_s},
                 {"processes", r.processes},
                 {"pids", r.pids},
                 {"restarts", restarts}};
  if (!crash.is_null()) all[r.node]["crash"] = crash;
  replace_json(lab_dir + "/nodes.json", all);
}

// No lock to read: nodes.json is replaced whole (rename), never written in place.
nlohmann::json read_node_states(const std::string& lab_dir) {
  return read_json_object(lab_dir + "/nodes.json");
}

int restartable_ranks(const nlohmann::json& states, const std::string& node) {
  const auto it = states.find(node);
  if (it == states.end() || !it->is_object() || it->value("event", "") != "crash") return 0;
  return it->value("crash", nlohmann::json::object()).value("ranks", 0);
}

LabNodeFaulter::LabNodeFaulter(const LabStore& store, std::string lab, ProcessSignaller& signaller)
    : store_(store), lab_(std::move(lab)), signaller_(signaller) {}

NodeFaultResult LabNodeFaulter::apply(const std::string& node, NodeEvent::Kind kind) {
  const auto now = [] {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + ts.tv_nsec / 1e9;
  };
  const std::string dir = store_.dir(lab_);
  if (kind == NodeEvent::Kind::kRestart) {
    const int ranks = restartable_ranks(read_node_states(dir), node);
    if (ranks == 0)
      throw NothingToRestart("node " + node +
                             " has nothing to restart: a restart runs again the launched ranks "
                             "its last event, a crash, killed");
    NodeFaultResult r{node, kind, ranks, {}, ranks};
    record_node_state(dir, r, now());
    return r;
  }
  // The records as they are now: a run started after `up` recorded its agents since.
  const LabState state = store_.load(lab_);
  if (kind == NodeEvent::Kind::kCrash) {
    // Recorded before the signals, with every pid they may reach: a launch that sees its
    // rank killed reads why at once (job_runner.h), whichever process is faster.
    NodeFaultResult intended{node, kind, 0, {}, 0};
    for (const auto& p : node_job_processes(state, node)) {
      ++intended.processes;
      intended.pids.push_back(p.pid);
      intended.ranks += p.group ? 1 : 0;
    }
    record_node_state(dir, intended, now());
  }
  const NodeFaultResult r = apply_node_fault(state, node, kind, signaller_);
  record_node_state(dir, r, now());
  return r;
}

}  // namespace testbed
