// Starting a process, optionally inside a network namespace and in a session of its own:
// the one place the testbed creates processes (delay lines, agents, the exporter, its own
// verbs run by the scenario runner, iptables). Boost.Process v2 with its vfork launcher:
// the controller can hold a plan of hundreds of megabytes, and fork() would copy its page
// tables and make every later write of the parent fault (a 200-node bring-up once spent
// 19 s in forks). Entering the namespace is an exec-setup step, run in the child between
// vfork and exec, with raw system calls only.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace testbed {

struct LaunchSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH unless it has a '/'
  int ns_fd = -1;                 // a network namespace to enter; -1: the caller's
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;  // -1: inherited
  bool new_session = false;  // setsid(): Ctrl-C in the controller's terminal won't reach it
};

// Returns the child's pid; the caller waits for it (or records it). Throws
// std::system_error naming the program when it cannot be started, including when it is
// not found (checked before the vfork, so no child exists then).
pid_t launch(const LaunchSpec& spec);

}  // namespace testbed
