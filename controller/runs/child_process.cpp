#include "controller/runs/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <stdexcept>

#include "netns/process_exit.h"
#include "netns/process_launcher.h"

namespace testbed {

ChildResult run_child(const std::vector<std::string>& argv,
                      const std::function<void(const std::string&)>& on_stderr_line,
                      const std::atomic<int>& forward_signal) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe2 failed");
  pid_t pid = -1;
  try {
    LaunchSpec spec;
    spec.argv = argv;
    spec.stdout_fd = out[1];
    spec.stderr_fd = err[1];
    pid = launch(spec);
  } catch (...) {
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    throw;
  }
  close(out[1]);
  close(err[1]);
  ChildResult r;
  std::string partial;
  bool out_open = true, err_open = true, forwarded = false;
  while (out_open || err_open) {
    if (forward_signal != 0 && !forwarded) {
      kill(pid, forward_signal);
      forwarded = true;
    }
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    // Wake every 100 ms to pass a signal on.
    if (poll(fds, 2, 100) <= 0) continue;
    char buf[65536];
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP))) {
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n > 0) {
        r.out.append(buf, static_cast<size_t>(n));
      } else {
        out_open = false;
      }
    }
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP))) {
      const ssize_t n = read(err[0], buf, sizeof buf);
      if (n > 0) {
        r.err.append(buf, static_cast<size_t>(n));
        partial.append(buf, static_cast<size_t>(n));
        for (size_t nl; (nl = partial.find('\n')) != std::string::npos; partial.erase(0, nl + 1))
          on_stderr_line(partial.substr(0, nl));
      } else {
        err_open = false;
      }
    }
  }
  close(out[0]);
  close(err[0]);
  r.status = reap(pid);
  return r;
}

std::string program_path(const std::string& name) {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / name).string();
}

}  // namespace testbed
