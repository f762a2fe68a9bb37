// The delay line's wait: which of its descriptors (control sockets, queues' netlink
// sockets) have data, each watch turned on and off as the loop needs, asked in one call
// whose cost does not grow with the descriptors held.
//
// Why not ppoll(2) over all of them, as the loop did: ppoll looks at every descriptor on
// every wake-up, and a process serving 500 nodes holds about 2,500 (a control socket and
// a queue per link direction each): 0.6 ms of CPU a turn, most of a `status` of 1000 nodes
// in the delay lines' CPU. epoll keeps the watches in the kernel and reports only the
// ready ones.
//
// The loop watches a queue's socket only while the queue is empty (delay_line_main.cpp),
// so a watch flips as a queue empties and fills. A flip is one epoll_ctl, and only a
// change costs one: a queue that stays busy costs none.
//
// Why ppoll on the epoll descriptor: ppoll takes its timeout in nanoseconds (a release is
// timed to microseconds) on every kernel; epoll_wait takes milliseconds, and
// epoll_pwait2, which takes nanoseconds, needs Linux 5.11. A timed wake-up with nothing
// ready is then one system call, as before; one with something ready takes a second to
// collect it.
#pragma once

#include <time.h>

#include <cstdint>
#include <vector>

namespace testbed {

class ReadinessSet {
 public:
  ReadinessSet();
  ~ReadinessSet();
  ReadinessSet(const ReadinessSet&) = delete;
  ReadinessSet& operator=(const ReadinessSet&) = delete;

  // Whether the set could be made (errno says why not).
  bool ok() const { return epfd_ >= 0; }
  // Watches `fd` under `tag` (the caller's name for it: an index, dense from 0), on or off
  // at first. False, with errno, when the kernel refused it.
  bool add(int fd, uint32_t tag, bool on);
  // Turns a watch on or off; a system call only when that changes it. False, with errno,
  // when the kernel refused.
  bool set(uint32_t tag, bool on);
  bool on(uint32_t tag) const { return tag < watches_.size() && watches_[tag].on; }

  // Waits up to `timeout` (nullptr: until something is ready), and returns the tags of
  // what is ready in `ready` (cleared first). -1 with errno on failure; an interrupting
  // signal is no failure (0 returned, nothing ready).
  int wait(const timespec* timeout, std::vector<uint32_t>& ready);

 private:
  struct Watch {
    int fd = -1;
    bool on = false;
  };
  int epfd_ = -1;
  std::vector<Watch> watches_;  // by tag
};

}  // namespace testbed
