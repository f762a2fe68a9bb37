#include "netns/delay_line_control.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "netns/delay_line_stats.h"

namespace testbed::delay_line {
namespace {

// A node's queues' figures; the kernel's drop counters are per namespace: the node's.
std::string stats_text(const Node& node, int home) {
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
  return format_delay_line_stats(stats);
}

// One datagram from the node's socket to the asker's socket `reply` beside it.
enum class Sent { kYes, kFull, kGone, kNo };
Sent send_datagram(const std::string& reply, const Node& node, const std::string& text) {
  const std::string dir = node.control.substr(0, node.control.rfind('/') + 1);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (dir.size() + reply.size() >= sizeof addr.sun_path) return Sent::kNo;
  std::memcpy(addr.sun_path, (dir + reply).c_str(), dir.size() + reply.size() + 1);
  if (sendto(node.ctl, text.data(), text.size(), MSG_DONTWAIT,
             reinterpret_cast<const sockaddr*>(&addr),
             sizeof addr) == static_cast<ssize_t>(text.size()))
    return Sent::kYes;
  if (errno == EAGAIN) return Sent::kFull;
  // The asker's socket is gone: it gave up waiting, and a file would be left behind.
  return errno == ECONNREFUSED || errno == ENOENT ? Sent::kGone : Sent::kNo;
}

void write_stats(const std::string& name, const Node& node, const std::string& text) {
  // A fresh temporary (never an existing file or a link), then renamed over the name.
  const std::string tmp = name + ".tmp";
  unlinkat(node.control_dir, tmp.c_str(), 0);
  const int fd = openat(node.control_dir, tmp.c_str(),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::fprintf(stderr, "testbed-delayline: open %s: %s\n", tmp.c_str(), std::strerror(errno));
    return;
  }
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
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

// This turn's answers to each asker's socket, sent together at the end of the turn: a Unix
// socket queues at most 10 datagrams (net.unix.max_dgram_qlen's default), and the asker of
// a 1000-node lab asks hundreds of nodes of one process at once. One datagram per node, or
// a file per node (an inode made and removed: 1.6 ms of a delay line's CPU each on ext4),
// made `status` of such a lab cost the delay lines a core's second.
struct Answers {
  const Node* from = nullptr;                              // the socket they leave by
  std::string text;                                        // "from NAME" sections
  std::vector<std::pair<const Node*, std::string>> files;  // each node's file, if not sent
  std::vector<std::string> texts;                          // and what it would hold
};
std::map<std::string, Answers> g_answers;  // by the asker's socket

void flush(const std::string& reply, Answers& a) {
  if (a.files.empty()) return;
  const Sent sent = send_datagram(reply, *a.from, a.text);
  if (sent == Sent::kFull || sent == Sent::kNo) {
    for (size_t i = 0; i < a.files.size(); ++i)
      write_stats(a.files[i].second, *a.files[i].first, a.texts[i]);
  }
  a = Answers{};
}

// Adds a node's answer to its asker's datagram, sending what is there first if it would
// grow too large; an answer too large for any datagram (a hub's) goes to its file.
void answer(const std::string& reply, const std::string& file, const Node& node,
            const std::string& text) {
  const std::string name = node.control.substr(node.control.rfind('/') + 1);
  std::string section = std::string(kStatsSection) + name + "\n" + text;
  if (section.size() > kMaxStatsReplyBytes) {
    write_stats(file, node, text);
    return;
  }
  Answers& a = g_answers[reply];
  if (a.text.size() + section.size() > kMaxStatsReplyBytes) flush(reply, a);
  if (!a.from) a.from = &node;
  a.text += section;
  a.files.emplace_back(&node, file);
  a.texts.push_back(text);
}

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
      const std::string text = stats_text(node, home);
      std::string reply;
      if (in >> reply && plain_name(reply)) {
        answer(reply, path, node, text);
      } else {
        write_stats(path, node, text);  // an asker without a socket of its own
      }
    } else if (verb == "set" && in >> num >> delay >> jitter && node.queues.count(num)) {
      auto& q = node.queues.at(num);
      q.delay.set_params({delay, jitter, q.delay.params().reorder});
      q.window_us = release_window(delay, window_cap_us);
    } else {
      std::fprintf(stderr, "testbed-delayline: ignored control message '%s'\n", buf);
    }
  }
}

void send_answers() {
  for (auto& [reply, a] : g_answers) flush(reply, a);
  g_answers.clear();
}

}  // namespace testbed::delay_line
