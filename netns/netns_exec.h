// Running programs inside a namespace: short commands whose output we need (iptables),
// and long-lived processes (the delay line) that must outlive the controller.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace testbed {

struct CommandResult {
  int status = -1;  // exit status, or 128 + signal
  std::string output;
};

// Runs argv in the namespace `ns` (empty: the caller's), feeding `input` on stdin, and
// waits for it. Throws only when it cannot be started.
CommandResult run_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                           const std::string& input = "");

// Starts argv in `ns` (empty: the caller's) as a new session, detached from the terminal
// so Ctrl-C in the controller's shell does not reach it, with stdout and stderr appended
// to `log_path`. Returns its pid; the caller records it.
pid_t spawn_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                     const std::string& log_path);

}  // namespace testbed
