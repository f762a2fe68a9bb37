#include "netns/readiness_set.h"

#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

namespace testbed {

namespace {

// Events collected per epoll_wait: a turn with more ready takes them at the next call,
// which is at once (they stay ready: level-triggered).
constexpr int kEventsPerCall = 256;

// A watch turned off is taken out of the set, not left in with no events asked: epoll
// reports an error or a hang-up whatever was asked, and a queue's socket that overran
// (ENOBUFS) while its queue was busy would then wake every wait until the queue emptied.
bool change(int epfd, int op, int fd, uint32_t tag) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u32 = tag;
  return epoll_ctl(epfd, op, fd, op == EPOLL_CTL_DEL ? nullptr : &ev) == 0;
}

}  // namespace

ReadinessSet::ReadinessSet() : epfd_(epoll_create1(EPOLL_CLOEXEC)) {}

ReadinessSet::~ReadinessSet() {
  if (epfd_ >= 0) close(epfd_);
}

bool ReadinessSet::add(int fd, uint32_t tag, bool on) {
  if (on && !change(epfd_, EPOLL_CTL_ADD, fd, tag)) return false;
  if (watches_.size() <= tag) watches_.resize(tag + 1);
  watches_[tag] = {fd, on};
  return true;
}

bool ReadinessSet::set(uint32_t tag, bool on) {
  if (tag >= watches_.size() || watches_[tag].fd < 0) {
    errno = ENOENT;
    return false;
  }
  Watch& w = watches_[tag];
  if (w.on == on) return true;
  if (!change(epfd_, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, w.fd, tag)) return false;
  w.on = on;
  return true;
}

int ReadinessSet::wait(const timespec* timeout, std::vector<uint32_t>& ready) {
  ready.clear();
  pollfd p{epfd_, POLLIN, 0};
  const int n = ppoll(&p, 1, timeout, nullptr);
  if (n < 0) return errno == EINTR ? 0 : -1;
  if (n == 0) return 0;
  epoll_event events[kEventsPerCall];
  const int got = epoll_wait(epfd_, events, kEventsPerCall, 0);
  if (got < 0) return errno == EINTR ? 0 : -1;
  for (int i = 0; i < got; ++i) {
    const uint32_t tag = events[i].data.u32;
    if (tag < watches_.size()) ready.push_back(tag);
  }
  return static_cast<int>(ready.size());
}

}  // namespace testbed
