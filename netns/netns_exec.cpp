#include "netns_exec.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include "named_netns.h"

namespace testbed {
namespace {

// Children are started with vfork: the controller can hold a plan of hundreds of
// megabytes, and fork() would copy its page tables and make every later write of the
// parent fault (a 200-node bring-up spent 19 s in forks). A vfork child shares the parent's
// memory until it execs, so it does raw system calls only: everything it needs (argv, the
// resolved program path) is prepared before.
struct ChildPlan {
  std::string program;      // absolute path, resolved through PATH beforehand
  std::vector<char*> argv;  // points into the caller's strings
  int ns_fd = -1;
  int stdin_fd = -1, stdout_fd = -1;
  bool new_session = false;
};

std::string resolve(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;  // execve fails with ENOENT and the child exits 127
}

ChildPlan plan_child(const std::vector<std::string>& argv) {
  ChildPlan p;
  p.program = resolve(argv.at(0));
  for (const auto& a : argv) p.argv.push_back(const_cast<char*>(a.c_str()));
  p.argv.push_back(nullptr);
  return p;
}

pid_t start_child(const ChildPlan& p) {
  const pid_t pid = vfork();
  if (pid < 0) throw_errno("vfork");
  if (pid == 0) {
    if (p.new_session) setsid();
    if (p.ns_fd >= 0 && setns(p.ns_fd, CLONE_NEWNET) != 0) _exit(126);
    if (p.stdin_fd >= 0) dup2(p.stdin_fd, STDIN_FILENO);
    if (p.stdout_fd >= 0) {
      dup2(p.stdout_fd, STDOUT_FILENO);
      dup2(p.stdout_fd, STDERR_FILENO);
    }
    execve(p.program.c_str(), p.argv.data(), environ);
    _exit(127);
  }
  return pid;
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
  if (pipe2(in_pipe, O_CLOEXEC) != 0) throw_errno("pipe2");
  FileDescriptor in_read(in_pipe[0]), in_write(in_pipe[1]);
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw_errno("pipe2");
  FileDescriptor out_read(out_pipe[0]), out_write(out_pipe[1]);
  ChildPlan plan = plan_child(argv);
  plan.ns_fd = ns_fd.get();
  plan.stdin_fd = in_read.get();
  plan.stdout_fd = out_write.get();
  const pid_t pid = start_child(plan);
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
  ChildPlan plan = plan_child(argv);
  plan.ns_fd = ns_fd.get();
  plan.stdin_fd = null.get();
  plan.stdout_fd = log.get();
  plan.new_session = true;  // Ctrl-C in the controller's terminal must not reach it
  return start_child(plan);
}

}  // namespace testbed
