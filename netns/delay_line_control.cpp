#include "netns/delay_line_control.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "netns/delay_line_stats.h"

namespace testbed::delay_line {
namespace {

// A node's queues' figures; the kernel's drop counters are per namespace: the node's.
void write_stats(const std::string& name, const Node& node, int home) {
  std::string text;
  if (!inside(node.netns, home, [&] {
        std::ifstream table("/proc/self/net/netfilter/nfnetlink_queue");
        text.assign(std::istreambuf_iterator<char>(table), std::istreambuf_iterator<char>());
      }))
    std::fprintf(stderr, "testbed-delayline: entering %s: %s\n", node.netns.c_str(),
                 std::strerror(errno));
  const auto drops = parse_nfqueue_table(text);
  std::vector<DelayLineQueueStats> stats;
  for (const auto& [num, q] : node.queues) {
    DelayLineQueueStats s;
    s.queue = num;
    s.released = q.delay.lateness().count();
    s.lateness = q.delay.lateness();
    s.emulator_lateness = q.delay.emulator_lateness();
    if (const auto it = drops.find(num); it != drops.end()) {
      s.queue_dropped = it->second.queue_dropped;
      s.user_dropped = it->second.user_dropped;
    }
    stats.push_back(s);
  }
  // A fresh temporary (never an existing file or a link), then renamed over the name.
  const std::string tmp = name + ".tmp";
  unlinkat(node.control_dir, tmp.c_str(), 0);
  const int fd = openat(node.control_dir, tmp.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "testbed-delayline: open %s: %s\n", tmp.c_str(), std::strerror(errno));
    return;
  }
  const std::string out = format_delay_line_stats(stats);
  const bool written = write(fd, out.data(), out.size()) == static_cast<ssize_t>(out.size());
  close(fd);
  if (!written || renameat(node.control_dir, tmp.c_str(), node.control_dir, name.c_str()) != 0)
    std::fprintf(stderr, "testbed-delayline: write %s: %s\n", name.c_str(), std::strerror(errno));
}

// A stats file's name: letters, digits, '.', '-', '_', not starting with '.'; no directory.
bool plain_name(const std::string& name) {
  if (name.empty() || name.size() > 200 || name.front() == '.') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
      return false;
  return true;
}

// Datagrams refused: from another user, or naming a file outside the lab's directory.
unsigned long g_refused = 0;

}  // namespace

void handle_control(Node& node, int64_t window_cap_us, int home) {
  char buf[4096];
  for (;;) {
    iovec iov{buf, sizeof buf - 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(node.ctl, &msg, MSG_DONTWAIT);
    if (n <= 0) break;
    buf[n] = '\0';
    // SO_PASSCRED makes the kernel attach the sender's credentials to every datagram.
    const cmsghdr* c = CMSG_FIRSTHDR(&msg);
    ucred sender{};
    const bool has_creds = c != nullptr && c->cmsg_level == SOL_SOCKET &&
                           c->cmsg_type == SCM_CREDENTIALS &&
                           c->cmsg_len == CMSG_LEN(sizeof(ucred));
    if (has_creds) std::memcpy(&sender, CMSG_DATA(c), sizeof sender);
    if (!has_creds || sender.uid != geteuid()) {
      ++g_refused;
      std::fprintf(
          stderr, "testbed-delayline: refused a control message from uid %d pid %d (%lu refused)\n",
          has_creds ? int(sender.uid) : -1, has_creds ? int(sender.pid) : -1, g_refused);
      continue;
    }
    std::istringstream in(buf);
    std::string verb;
    in >> verb;
    unsigned num = 0;
    int64_t delay = 0, jitter = 0;
    std::string path;
    if (verb == "stats" && in >> path && plain_name(path)) {
      write_stats(path, node, home);
    } else if (verb == "set" && in >> num >> delay >> jitter && node.queues.count(num)) {
      auto& q = node.queues.at(num);
      q.delay.set_params({delay, jitter, q.delay.params().reorder});
      q.window_us = release_window(delay, window_cap_us);
    } else {
      std::fprintf(stderr, "testbed-delayline: ignored control message '%s'\n", buf);
    }
  }
}

}  // namespace testbed::delay_line
