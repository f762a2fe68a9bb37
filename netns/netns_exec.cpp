#include "netns_exec.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>

#include "named_netns.h"

namespace testbed {
namespace {

// Between fork and exec only async-signal-safe calls: setns, dup2, execvp, _exit.
[[noreturn]] void exec_child(int ns_fd, const std::vector<std::string>& argv) {
  if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) != 0) _exit(126);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

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
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0) throw_errno("pipe2");
  const pid_t pid = fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(out_pipe[1], STDERR_FILENO);
    exec_child(ns_fd.get(), argv);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  // Inputs here are a few hundred bytes of iptables rules: far below the pipe buffer, so
  // writing all before reading cannot deadlock.
  if (!input.empty() && write(in_pipe[1], input.data(), input.size()) < 0) { /* child reports */
  }
  close(in_pipe[1]);
  CommandResult r;
  std::array<char, 4096> buf;
  for (ssize_t n; (n = read(out_pipe[0], buf.data(), buf.size())) > 0;)
    r.output.append(buf.data(), n);
  close(out_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = decode(status);
  return r;
}

pid_t spawn_in_netns(const std::string& ns, const std::vector<std::string>& argv,
                     const std::string& log_path) {
  FileDescriptor ns_fd = ns.empty() ? FileDescriptor() : open_netns(ns);
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) throw_errno("open(" + log_path + ")");
  FileDescriptor log_fd(log);
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  FileDescriptor null_fd(null);
  const pid_t pid = fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0) {
    setsid();
    dup2(null, STDIN_FILENO);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    exec_child(ns_fd.get(), argv);
  }
  return pid;
}

}  // namespace testbed
