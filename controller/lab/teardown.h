// Removes what a lab recorded, and only that: processes by recorded pid (checked against
// their start time) and namespaces by recorded identity. Used by `down` and `clean`.
#pragma once

#include <csignal>
#include <functional>

#include <string>
#include <vector>

#include "controller/lab/lab_state.h"
#include "netns/kernel.h"

namespace testbed {

// /proc/PID/stat start time in clock ticks since boot; 0 when the process has exited.
uint64_t process_start_time(int pid);
// Field 3 of /proc/PID/stat: 'R' running, 'S' sleeping, 'T' stopped, 'Z' a zombie, ...;
// '\0' when there is no such process.
char process_state(int pid);

// Starts argv in namespace `ns` (empty: the host's) with its output appended to
// `log_path`, and records it in the lab's state at once (pid and start time), so `down`
// and `clean` can end it whatever happens next. `node` names the node it serves, if any.
int spawn_recorded(const LabStore& store, LabState& state, const std::string& ns,
                   const std::vector<std::string>& argv, const std::string& log_path,
                   const std::string& node = "");

// Removes the records of `pids` from the lab's saved state, under the lab's lock: processes
// a run started and has ended. `before` (when given) sees each record first (a run uses it
// to end an agent that did not quit in time).
void forget_processes(const LabStore& store, const std::string& lab, const std::vector<int>& pids,
                      const std::function<void(const ProcessRecord&)>& before = {});

// `p`, owned by this process: `clean` ends it if this process dies without doing so.
ProcessRecord owned_by_me(ProcessRecord p);

// What a command's agents get when the command is killed outright (spawn_in_netns'
// parent_death_signal): they end with it. Waiting on for a controller that is gone, a
// train's agents held its job's control groups, so the next train on the lab spent 2 s
// per node freeing them, then its own agents' connections lost to theirs on the lab's
// agent socket, and it hung.
constexpr int kAgentParentDied = SIGKILL;

// Ends the processes whose owner is gone (a train or launch killed outright), by recorded
// pid and start time, and forgets them and any record of an exited owned process. The
// lab's own processes are left. Returns how many were still running and were ended.
int end_orphans(LabState& state);

struct TeardownReport {
  int processes_ended = 0;
  int namespaces_deleted = 0;
  int steps_undone = 0;              // inside adopted namespaces (see LabState::adopted)
  int cgroups_removed = 0;           // the nodes' control groups' directories
  std::vector<std::string> skipped;  // things recorded but no longer ours, with the reason
  std::vector<std::string> errors;
};

TeardownReport teardown_lab(const LabState& state, Kernel& kernel);

}  // namespace testbed
