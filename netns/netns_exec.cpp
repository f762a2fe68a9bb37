#include "netns/netns_exec.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>

#include "netns/crash_point.h"
#include "netns/named_netns.h"
#include "netns/node_identity.h"
#include "netns/process_exit.h"
#include "netns/process_launcher.h"

namespace testbed {
namespace {}  // namespace

CommandResult run_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                           const std::string& input, int cwd_fd) {
  FileDescriptor ns_fd = ns.empty() ? FileDescriptor() : open_netns(ns);
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) throw_errno("pipe2");
  FileDescriptor in_read(in_pipe[0]), in_write(in_pipe[1]);
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw_errno("pipe2");
  FileDescriptor out_read(out_pipe[0]), out_write(out_pipe[1]);
  LaunchSpec spec;
  spec.argv = argv;
  spec.ns_fd = ns_fd.get();
  spec.stdin_fd = in_read.get();
  spec.stdout_fd = spec.stderr_fd = out_write.get();
  spec.cwd_fd = cwd_fd;
  const pid_t pid = launch(spec);
  in_read = FileDescriptor();
  out_write = FileDescriptor();
  // Inputs here are iptables rules and gnuplot scripts, read by the child as it goes, and
  // the child says little until it has read them: writing all before reading cannot
  // deadlock. A write error means the child exited; its status says why, below.
  // SIGPIPE, should the child exit before reading all, is blocked on this thread and taken
  // back before it is unblocked: the controller must not die of a child's early exit.
  sigset_t pipe_signal, old_mask;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old_mask);
  bool broken = false;
  for (size_t done = 0; done < input.size();) {
    const ssize_t n = write(in_write.get(), input.data() + done, input.size() - done);
    if (n <= 0) {
      broken = errno == EPIPE;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (broken) {
    const timespec now{0, 0};
    sigtimedwait(&pipe_signal, nullptr, &now);
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  in_write = FileDescriptor();
  CommandResult r;
  std::array<char, 4096> buf;
  for (ssize_t n; (n = read(out_read.get(), buf.data(), buf.size())) > 0;)
    r.output.append(buf.data(), n);
  r.status = reap(pid);
  return r;
}

pid_t spawn_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                     const std::string& log_path, const RecordStarted& record,
                     int parent_death_signal) {
  FileDescriptor ns_fd = ns.empty() ? FileDescriptor() : open_netns(ns);
  // O_NOFOLLOW: the log is in the lab's own directory; a link there is not ours to follow.
  FileDescriptor log(
      open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (log.get() < 0) throw_errno("open(" + log_path + ")");
  int gate[2];
  if (pipe2(gate, O_CLOEXEC) != 0) throw_errno("pipe2");
  FileDescriptor gate_read(gate[0]), gate_write(gate[1]);
  const NodeIdentity identity = open_node_identity(ns);
  LaunchSpec spec;
  // The gate: a shell reads one line from the pipe on its stdin, then becomes the program
  // (same pid, same start time: the record stays true) with /dev/null as its stdin. End of
  // file instead of the line, when the caller died before recording it, ends it there. The
  // program is resolved first, so "cannot run" still names it before anything starts.
  spec.argv = {"/bin/sh", "-c", "read -r go && exec \"$0\" \"$@\" </dev/null",
               find_program(argv.at(0))};
  spec.argv.insert(spec.argv.end(), argv.begin() + 1, argv.end());
  spec.ns_fd = ns_fd.get();
  spec.stdin_fd = gate_read.get();
  spec.stdout_fd = spec.stderr_fd = log.get();
  spec.new_session = true;  // Ctrl-C in the controller's terminal must not reach it
  spec.parent_death_signal = parent_death_signal;
  spec.uts_fd = identity.uts.get();
  spec.hosts_file = identity.hosts_file;
  spec.cgroup_fds = identity.cgroup_fds();
  const pid_t pid = launch(spec);
  gate_read = FileDescriptor();
  crash_point("spawn:started, not recorded");
  try {
    if (record) record(pid);
  } catch (...) {
    gate_write = FileDescriptor();  // the gate reads end of file: the program never runs
    reap(pid);
    throw;
  }
  crash_point("spawn:recorded, not released");
  if (write(gate_write.get(), "go\n", 3) != 3)
    throw_errno("write(gate of pid " + std::to_string(pid) + ")");
  return pid;
}

}  // namespace testbed
