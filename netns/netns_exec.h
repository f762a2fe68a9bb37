// Running programs inside a namespace: short commands whose output we need (iptables),
// and long-lived processes (the delay line) that must outlive the controller.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace testbed {

struct CommandResult {
  int status = -1;  // exit status, or 128 + signal
  std::string output;
};

// Runs argv in the namespace `ns` (empty: the caller's), feeding `input` on stdin, and
// waits for it. Throws only when it cannot be started.
// `cwd_fd`: a directory to run in (an open descriptor, so what runs there is what the
// caller checked); -1: the caller's.
CommandResult run_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                           const std::string& input = "", int cwd_fd = -1);

// Called with a started process's pid before the process runs any of its program: the
// place to record it. A throw keeps it from ever running.
using RecordStarted = std::function<void(pid_t)>;

// Starts argv in `ns` (empty: the caller's) as a new session, detached from the terminal
// so Ctrl-C in the controller's shell does not reach it, with stdout and stderr appended
// to `log_path`, and returns its pid. The process waits at a gate until `record` has
// returned: a caller killed before recording it leaves a process that exits by itself
// (the gate reads end of file) instead of one nothing knows about. `parent_death_signal`
// (0: none) is sent to the process when the calling thread ends, as LaunchSpec's: for a
// process that must not outlive the command that started it (a train's agents).
pid_t spawn_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                     const std::string& log_path, const RecordStarted& record = {},
                     int parent_death_signal = 0);

}  // namespace testbed
