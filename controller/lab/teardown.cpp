#include "controller/lab/teardown.h"

#include "controller/lab/applier.h"
#include "controller/lab/step_json.h"

#include <signal.h>
#include <unistd.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>

#include "netns/crash_point.h"
#include "netns/netns_exec.h"
#include "netns/node_cgroup.h"
#include "netns/node_identity.h"
#include "netns/process_exit.h"
#include "netns/process_stat.h"

namespace testbed {
namespace {

// A process gets this long to exit after SIGTERM before SIGKILL: enough for iperf3 or an
// agent to flush results, short enough that `down` stays quick.
constexpr auto kTermGrace = std::chrono::seconds(2);

bool is_ours(const ProcessRecord& p) {
  return p.pid > 0 && p.start_time != 0 && process_start_time(p.pid) == p.start_time;
}

// The processes of group `pgid` that live in one of `namespaces` (network namespace
// inodes): what a launched job's rank left when its leader died without us (a controller
// killed outright takes the leaders with it, by PR_SET_PDEATHSIG, not their children).
// The group id is the recorded leader's pid, and a group cannot outlive its id's reuse;
// the namespace, one this lab made, proves the process is the lab's.
std::vector<int> group_members_in(int pgid, const std::set<uint64_t>& namespaces) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream in(e.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    int ppid = 0, pgrp = 0;
    if (!(rest >> state >> ppid >> pgrp) || pgrp != pgid) continue;
    struct stat ns {};
    if (::stat((e.path() / "ns/net").c_str(), &ns) != 0 || namespaces.count(ns.st_ino) == 0)
      continue;
    out.push_back(std::stoi(name));
  }
  return out;
}

}  // namespace

char process_state(int pid) {
  const auto stat = read_process_stat(pid);
  return stat ? stat->state : '\0';
}

uint64_t process_start_time(int pid) {
  const auto stat = read_process_stat(pid);
  // A zombie (Z) or dead (X) process has already exited, even if its parent has not
  // reaped it yet.
  if (!stat || stat->state == 'Z' || stat->state == 'X') return 0;
  return stat->start_time;
}

namespace {

// The process half of a teardown: every recorded process still ours, and what is left of a
// launched job's groups, ended. Returns how many were signalled.
int end_processes(const LabState& state) {
  int ended = 0;
  std::set<uint64_t> lab_namespaces;
  for (const auto& ns : state.namespaces)
    if (ns.inode != 0) lab_namespaces.insert(ns.inode);
  for (const auto& p : state.processes) {
    if (!p.group || p.pid <= 0 || is_ours(p)) continue;
    for (int member : group_members_in(p.pid, lab_namespaces)) {
      kill(member, SIGKILL);
      ++ended;
    }
  }
  // Each process is pinned by a pidfd once its start time says it is ours: from then on
  // neither the signals nor the wait can reach a stranger that took its number.
  std::vector<std::pair<const ProcessRecord*, ProcessHandle>> signalled;
  for (const auto& p : state.processes) {
    if (p.pid == getpid()) continue;
    if (!is_ours(p)) continue;  // exited, or the pid now belongs to someone else
    ProcessHandle h = ProcessHandle::open(p.pid);
    if (!h.valid() || !is_ours(p)) continue;  // it ended meanwhile
    // A group leader's group is ours too: it was made for this process alone (setsid).
    if (kill(p.group ? -p.pid : p.pid, SIGTERM) == 0) signalled.emplace_back(&p, std::move(h));
    // A paused node's processes (node_faults.h) hold SIGTERM pending while stopped: they
    // are continued so that it is delivered, and end within the grace, not after it.
    kill(p.group ? -p.pid : p.pid, SIGCONT);
  }
  const auto deadline = std::chrono::steady_clock::now() + kTermGrace;
  for (const auto& [p, h] : signalled) {
    if (!h.wait_until(deadline)) h.signal(SIGKILL);
    reap_if_ended(p->pid);  // when it happens to be our child
    // What is left of its group (children that ignored SIGTERM) goes too; the group
    // keeps the leader's id while any member lives, and no other process can take it.
    if (p->group) kill(-p->pid, SIGKILL);
    ++ended;
    crash_point("teardown:process ended");
  }
  return ended;
}

}  // namespace

namespace {

// Inside namespaces a slice adopted, what the slice changed is undone step by step, newest
// first; a namespace already gone (its pod deleted) has nothing left to undo.
void undo_adopted_steps(const LabState& state, Kernel& kernel, TeardownReport& report) {
  if (state.adopted_steps.empty()) return;
  if (!state.plan_problem.empty()) {
    report.errors.push_back("the adopted namespaces' steps cannot be undone: " +
                            state.plan_problem);
    return;
  }
  const auto& steps = state.plan.steps;
  for (auto it = state.adopted_steps.rbegin(); it != state.adopted_steps.rend(); ++it) {
    if (*it >= steps.size()) {
      report.errors.push_back("adopted step " + std::to_string(*it + 1) + " is not in plan.json");
      continue;
    }
    try {
      const Step& step = steps[*it];
      const auto nss = step_namespaces(step);
      if (std::any_of(nss.begin(), nss.end(),
                      [&](const auto& ns) { return !kernel.namespace_exists(ns); })) {
        continue;
      }
      remove_step(kernel, step);
      ++report.steps_undone;
    } catch (const std::exception& e) {
      report.errors.push_back("undo step " + std::to_string(*it + 1) + ": " + e.what());
    }
  }
}

// The nodes' control groups, once their processes are gone. A process killed a moment ago
// may still be leaving its group (the kernel empties it as the process exits), so a busy
// group is tried again for up to two seconds; one still busy then holds processes the lab
// never recorded, named in the error rather than killed.
void remove_cgroups(const LabState& state, TeardownReport& report) {
  for (const auto& dir : state.cgroups) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (;;) {
      try {
        remove_cgroup_dir(dir);
        ++report.cgroups_removed;
        break;
      } catch (const std::system_error& e) {
        if (e.code().value() != EBUSY || std::chrono::steady_clock::now() > deadline) {
          report.errors.push_back(e.what());
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
}

}  // namespace

TeardownReport teardown_lab(const LabState& state, Kernel& kernel) {
  TeardownReport report;
  report.processes_ended = end_processes(state);
  for (const auto& id : state.identities) {
    try {
      const uint64_t inode = uts_namespace_inode(id.ns);
      if (id.uts_inode != 0 && inode != 0 && inode != id.uts_inode) {
        report.skipped.push_back("UTS namespace " + id.ns + ": replaced since this lab made it");
      } else {
        delete_uts_namespace(id.ns);
      }
      crash_point("teardown:UTS namespace deleted");
      remove_hosts_file(id.ns);
    } catch (const std::exception& e) {
      report.errors.push_back(e.what());
    }
  }
  remove_cgroups(state, report);
  undo_adopted_steps(state, kernel, report);
  for (const auto& ns : state.namespaces) {
    const uint64_t inode = kernel.namespace_inode(ns.name);
    if (inode == 0) continue;  // already gone
    if (ns.inode != 0 && inode != ns.inode) {
      report.skipped.push_back("namespace " + ns.name + ": replaced since this lab made it");
      continue;
    }
    try {
      kernel.delete_namespace(ns.name);
      ++report.namespaces_deleted;
      crash_point("teardown:namespace deleted");
    } catch (const std::exception& e) {
      report.errors.push_back(e.what());
    }
  }
  return report;
}

void forget_processes(const LabStore& store, const std::string& lab, const std::vector<int>& pids,
                      const std::function<void(const ProcessRecord&)>& before) {
  auto lock = store.lock(lab, /*wait=*/true);
  LabState s = store.load(lab);
  std::erase_if(s.processes, [&](const ProcessRecord& p) {
    if (std::find(pids.begin(), pids.end(), p.pid) == pids.end()) return false;
    if (before) before(p);
    return true;
  });
  store.save(s);
}

ProcessRecord owned_by_me(ProcessRecord p) {
  p.owner_pid = getpid();
  p.owner_start_time = process_start_time(p.owner_pid);
  return p;
}

int end_orphans(LabState& state) {
  const auto orphaned = [](const ProcessRecord& p) {
    return p.owner_pid != 0 && process_start_time(p.owner_pid) != p.owner_start_time;
  };
  LabState orphans;
  orphans.namespaces = state.namespaces;  // so a job's group is found in the lab's namespaces
  for (const auto& p : state.processes)
    if (orphaned(p)) orphans.processes.push_back(p);
  int ended = 0;
  for (const auto& p : orphans.processes) ended += is_ours(p) ? 1 : 0;
  // teardown_lab's process half: SIGTERM, a grace, SIGKILL, groups included. With no
  // namespaces or identities to delete (the kernel is not asked), nothing else happens.
  end_processes(orphans);
  std::erase_if(state.processes, orphaned);
  return ended;
}

int spawn_recorded(const LabStore& store, LabState& state, const std::string& ns,
                   const std::vector<std::string>& argv, const std::string& log_path,
                   const std::string& node) {
  return spawn_in_netns(ns, argv, log_path, [&](pid_t pid) {
    state.processes.push_back({pid, process_start_time(pid), node, argv});
    store.record_process(state.lab, state.processes.back());
  });
}

}  // namespace testbed
