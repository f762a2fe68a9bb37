#include "netns/wait_set.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>

#include "netns/kernel_error.h"
#include "netns/stop_signals.h"

namespace testbed {

void WaitSet::watch_end(pid_t pid) {
  processes_.insert_or_assign(pid, ProcessHandle::open(pid));
}

void WaitSet::forget_end(pid_t pid) {
  processes_.erase(pid);
}

void WaitSet::watch_readable(int fd) {
  if (std::find(fds_.begin(), fds_.end(), fd) == fds_.end()) fds_.push_back(fd);
}

void WaitSet::forget_readable(int fd) {
  fds_.erase(std::remove(fds_.begin(), fds_.end(), fd), fds_.end());
}

WaitSet::Woken WaitSet::wait(std::chrono::milliseconds timeout) {
  Woken woken;
  // The order of `polled`: the stop signals' pipe (when there is one), the processes, the
  // descriptors; `pids` names the processes' entries.
  std::vector<pollfd> polled;
  std::vector<pid_t> pids;
  if (stop_) polled.push_back({stop_->fd(), POLLIN, 0});
  for (const auto& [pid, handle] : processes_) {
    // A process already gone when it was watched has no pidfd: it has ended.
    if (!handle.valid()) {
      woken.ended.push_back(pid);
      continue;
    }
    polled.push_back({handle.fd(), POLLIN, 0});
    pids.push_back(pid);
  }
  for (int fd : fds_) polled.push_back({fd, POLLIN, 0});
  // A process found ended already: look, do not sleep.
  const int ms = !woken.ended.empty()  ? 0
                 : timeout.count() < 0 ? -1
                                       : static_cast<int>(timeout.count());
  const int r = poll(polled.data(), polled.size(), ms);
  if (r < 0 && errno != EINTR) throw_errno("poll(wait set)");
  // Interrupted: by a signal, a stop signal perhaps (its byte may not be written yet).
  if (r < 0) {
    woken.stop = stop_ && stop_->stopping();
    return woken;
  }
  if (r == 0) return woken;
  size_t i = 0;
  // The pipe, not the flag: the flag stays set, and a loop that drains the pipe (the rank
  // supervisor) would otherwise never sleep again.
  if (stop_) woken.stop = polled[i++].revents != 0;
  for (const pid_t pid : pids)
    if (polled[i++].revents != 0) woken.ended.push_back(pid);
  for (int fd : fds_)
    if (polled[i++].revents != 0) woken.readable.push_back(fd);
  return woken;
}

}  // namespace testbed
