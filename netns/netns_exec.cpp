#include "netns_exec.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>

#include "named_netns.h"
#include "node_identity.h"
#include "process_launcher.h"

namespace testbed {
namespace {

int decode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

CommandResult run_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                           const std::string& input) {
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
  const pid_t pid = launch(spec);
  in_read = FileDescriptor();
  out_write = FileDescriptor();
  // Inputs here are a few kilobytes of iptables rules: below the pipe buffer, so writing
  // all before reading cannot deadlock.
  if (!input.empty() && write(in_write.get(), input.data(), input.size()) < 0) {
    // The child exits with an error we report below.
  }
  in_write = FileDescriptor();
  CommandResult r;
  std::array<char, 4096> buf;
  for (ssize_t n; (n = read(out_read.get(), buf.data(), buf.size())) > 0;)
    r.output.append(buf.data(), n);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = decode(status);
  return r;
}

pid_t spawn_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                     const std::string& log_path) {
  FileDescriptor ns_fd = ns.empty() ? FileDescriptor() : open_netns(ns);
  FileDescriptor log(open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (log.get() < 0) throw_errno("open(" + log_path + ")");
  FileDescriptor null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  const NodeIdentity identity = open_node_identity(ns);
  LaunchSpec spec;
  spec.argv = argv;
  spec.ns_fd = ns_fd.get();
  spec.stdin_fd = null.get();
  spec.stdout_fd = spec.stderr_fd = log.get();
  spec.new_session = true;  // Ctrl-C in the controller's terminal must not reach it
  spec.uts_fd = identity.uts.get();
  spec.hosts_file = identity.hosts_file;
  return launch(spec);
}

}  // namespace testbed
