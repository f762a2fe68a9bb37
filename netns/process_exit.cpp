#include "netns/process_exit.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace testbed {
namespace {

// By system call: Debian 12's glibc (2.36) declares pidfd_open in <sys/pidfd.h> without C
// linkage, so C++ cannot link against it.
int open_pidfd(pid_t pid) {
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

int send_through_pidfd(int fd, int sig) {
  return static_cast<int>(syscall(SYS_pidfd_send_signal, fd, sig, nullptr, 0));
}

}  // namespace

int exit_code_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return -1;
}

int reap(pid_t child) {
  int status = 0;
  pid_t r;
  while ((r = waitpid(child, &status, 0)) < 0 && errno == EINTR) {
  }
  return r == child ? exit_code_of(status) : -1;
}

std::optional<int> reap_if_ended(pid_t child) {
  int status = 0;
  const pid_t r = waitpid(child, &status, WNOHANG);
  if (r == child) return exit_code_of(status);
  if (r < 0 && errno == ECHILD) return -1;  // not ours to wait for, or reaped already
  return std::nullopt;
}

ProcessHandle ProcessHandle::open(pid_t pid) {
  ProcessHandle h;
  h.pid_ = pid;
  if (pid > 0) h.fd_ = FileDescriptor(open_pidfd(pid));
  return h;
}

bool ProcessHandle::signal(int sig) const {
  return valid() && send_through_pidfd(fd_.get(), sig) == 0;
}

bool ProcessHandle::wait_until(std::chrono::steady_clock::time_point deadline) const {
  if (!valid()) return true;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd_.get(), POLLIN, 0};
    // Rounded up, so a deadline a fraction of a millisecond away is still waited for.
    const int r = poll(&p, 1, left.count() < 0 ? 0 : static_cast<int>(left.count()) + 1);
    if (r > 0) return true;  // readable: it has ended
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

int end_child(pid_t child, std::chrono::milliseconds grace, bool group) {
  if (auto code = reap_if_ended(child)) return *code;
  const ProcessHandle h = ProcessHandle::open(child);
  kill(group ? -child : child, SIGTERM);
  if (!h.wait_until(std::chrono::steady_clock::now() + grace)) {
    kill(group ? -child : child, SIGKILL);
  }
  return reap(child);
}

}  // namespace testbed
