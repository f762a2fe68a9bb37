// Starting a process, optionally inside a network namespace and in a session of its own:
// the one place the testbed creates processes (delay lines, agents, the exporter, its own
// verbs run by the scenario runner, iptables). Boost.Process v2 with its vfork launcher:
// the controller can hold a plan of hundreds of megabytes, and fork() would copy its page
// tables and make every later write of the parent fault (a 200-node bring-up once spent
// 19 s in forks). Entering the namespace is an exec-setup step, run in the child between
// vfork and exec, with raw system calls only.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace testbed {

struct LaunchSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH unless it has a '/'
  int ns_fd = -1;                 // a network namespace to enter; -1: the caller's
  int stdin_fd = -1, stdout_fd = -1, stderr_fd = -1;  // -1: inherited
  bool new_session = false;  // setsid(): Ctrl-C in the controller's terminal won't reach it
  // The node's identity (node_identity.h): a UTS namespace to enter (-1: the caller's), and
  // a file to bind over /etc/hosts in a private mount namespace (empty: none), where /sys
  // is mounted afresh too so it lists the node's interfaces, as `ip netns exec` does.
  int uts_fd = -1;
  std::string hosts_file;
  // A signal the child gets when the thread that started it dies (PR_SET_PDEATHSIG; 0:
  // none), so a controller killed outright does not leave a user's job running.
  int parent_death_signal = 0;
  // A directory (open descriptor) to run in; -1: the caller's working directory.
  int cwd_fd = -1;
  // cgroup.procs files (open descriptors) the child joins before anything else, so that
  // all it ever runs is charged to its node's compute (node_cgroup.h).
  std::vector<int> cgroup_fds;
  // Replaces the environment when set: "NAME=value" entries.
  std::optional<std::vector<std::string>> env;
};

// Returns the child's pid; the caller waits for it (or records it). Throws
// std::system_error naming the program when it cannot be started, including when it is
// not found (checked before the vfork, so no child exists then).
pid_t launch(const LaunchSpec& spec);

// The executable `name` stands for (PATH is searched unless it has a '/'); throws
// std::system_error ("cannot run NAME") when there is none. For checking input before
// anything starts.
std::string find_program(const std::string& name);

}  // namespace testbed
