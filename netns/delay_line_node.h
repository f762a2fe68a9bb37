// The delay line's state for the nodes one process serves: each node's queues (one per
// link direction it receives) and its control socket. Shared by the delay line's files
// (delay_line_main.cpp: the loop; delay_line_control.cpp: control datagrams;
// delay_line_args.cpp: the command line).
#pragma once

#include <fcntl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netns/burst_loss.h"
#include "netns/delay_queue.h"

namespace testbed::delay_line {

// See delay_line_main.cpp's kDefaultWindowCapUs: a queue's release window is this share
// of its delay, at most the cap.
constexpr int64_t kWindowShareOfDelay = 50;

struct Queue {
  uint16_t num = 0;
  nfq_handle* nfq = nullptr;  // this queue's own netlink socket: watched on its own
  nfq_q_handle* handle = nullptr;
  DelayQueue delay;
  int64_t window_us = 0;
  // Bursty loss, decided here (iptables' statistic match can only drop independently).
  std::optional<GilbertElliottLoss> burst;
  bool stamped = true;  // every packet so far carried the kernel's arrival stamp
  uint32_t tag = 0;     // its socket's watch in the loop's ReadinessSet
  // Whether an arrival must wake the loop: see the top of delay_line_main.cpp.
  bool watched() const { return delay.size() == 0 || delay.params().reorder || !stamped; }
};

int64_t release_window(int64_t delay_us, int64_t cap_us) {
  return std::min(cap_us, delay_us / kWindowShareOfDelay);
}

// One node served: its namespace, its queues bound there, its control socket.
struct Node {
  std::string control;
  int control_dir = -1;  // the directory of `control`, shared by the process's nodes
  // Empty: the namespace this process runs in. Opened by name when entered (binding, and
  // reading its kernel drop counters), not held: a process serving thousands of nodes
  // keeps a descriptor per queue and per control socket only.
  std::string netns;
  int ctl = -1;
  std::map<uint16_t, Queue> queues;
};

// Runs `f` inside the network namespace at `netns` (or where we are, for ""), then
// returns to `home`. Netlink sockets opened inside stay bound to that namespace. False,
// with errno, when it could not enter or return (f did not run, or did).
template <typename F>
bool inside(const std::string& netns, int home, F f) {
  if (netns.empty()) {
    f();
    return true;
  }
  const int ns_fd = open(netns.c_str(), O_RDONLY | O_CLOEXEC);
  if (ns_fd < 0) return false;
  const bool entered = setns(ns_fd, CLONE_NEWNET) == 0;
  close(ns_fd);
  if (!entered) return false;
  f();
  return setns(home, CLONE_NEWNET) == 0;
}

}  // namespace testbed::delay_line
