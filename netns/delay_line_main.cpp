// testbed-delayline: holds the packets arriving on nodes' interfaces for each link
// direction's delay (and jitter), where the kernel has no sch_netem. In each receiving
// node's namespace, iptables' NFQUEUE target in PREROUTING hands it each packet (metadata
// only: the packet itself stays in the kernel) and it returns an ACCEPT verdict when the
// packet's time has come. Holding packets on the receiving side keeps TCP at full rate; on
// the sender's side TCP Small Queues would count them against the socket.
//
// One process serves one node or many: each node's queues are bound through a netlink
// socket opened inside that node's namespace (--netns; without it, the namespace the
// process runs in), and each node keeps its own control socket.
//
// usage: testbed-delayline NODE... [--release-window-us N]
//   NODE: --control PATH [--netns /run/netns/NS]
//         --queue NUM:DELAY_US:JITTER_US:SEED[:reorder][:ge=P,R,BAD,GOOD]...
// ge= gives the queue bursty loss (netns/burst_loss.h), decided here per packet.
// Control datagrams on a node's PATH (a filesystem socket, reachable from any namespace):
//   "set NUM DELAY_US JITTER_US"   changes a queue's delay for packets that arrive from then on
//   "stats NAME"                   writes the node's queues' release lateness and kernel drops
//                                  (see delay_line_stats.h) to the file NAME beside PATH (a
//                                  plain name: no directory), atomically by rename
// The control socket is its owner's alone (mode 0600), and a datagram from any other user
// (its SCM_CREDENTIALS uid) is dropped, counted and logged: a request makes root write.
#include <arpa/inet.h>
#include <fcntl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "netns/burst_loss.h"
#include "netns/delay_line_stats.h"
#include "netns/delay_queue.h"
#include "netns/host_stall.h"

namespace {

// The kernel holds at most this many packets per queue for us. GSO packets arrive whole
// (NFQA_CFG_F_GSO), so at 1 Gbit/s and 200 ms this is still several times the
// bandwidth-delay product even in full-size frames (about 16,700 of them).
constexpr uint32_t kQueueMaxLen = 65536;
// Receive buffer for packet notifications: one burst of the whole queue must fit, or the
// kernel drops packets it cannot notify us of (ENOBUFS).
constexpr int kReceiveBuffer = 32 * 1024 * 1024;
// Notifications read per recvmmsg call: one system call drains a burst, and a short count
// tells us the socket is empty without a second call that fails with EAGAIN.
constexpr int kReceiveBatch = 32;
// A notification carries metadata only (NFQNL_COPY_META): a few hundred bytes.
constexpr size_t kNotificationBytes = 4096;
// Packets due within a queue's release window of the earliest leave with it, in one
// wake-up and one batch verdict. The window is 2% of the queue's delay (a delay error
// TCP cannot tell from path variation) and at most 200 us: at 1 Gbit/s and 30 ms this cut
// the delay lines' own CPU per gigabit by a fifth, the host's total not measurably (most of
// it is the kernel's TCP/IP work, done wherever the verdict lands; bench/fidelity.sh).
// 0 means exact.
constexpr int64_t kDefaultWindowCapUs = 200;
constexpr int64_t kWindowShareOfDelay = 50;
// The delay line is the emulated network's clock, so it runs under SCHED_FIFO: a release
// then preempts the agents' compute instead of waiting its turn behind them. Under the
// default scheduler a light run (20 Mbit/s, 30% CPU) saw its p99 release 2 ms late on a
// loaded 2-core host, in bursts where two runnable agents held both cores. The priority is
// the lowest that still outranks every normal task; the kernel's real-time throttling
// (sched_rt_runtime_us, 95% of each second) keeps an overloaded delay line from starving
// the host, and health then reports the lateness as before.
constexpr int kRealtimePriority = 1;
// XORed into a queue's seed for its loss chain, so that loss and jitter draw apart (the
// 64-bit golden ratio, an arbitrary constant with well-mixed bits).
constexpr uint64_t kBurstSeedMask = 0x9e3779b97f4a7c15ULL;

volatile sig_atomic_t g_stop = 0;
void on_stop(int) {
  g_stop = 1;
}

int64_t clock_us(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t now_us() {
  return clock_us(CLOCK_MONOTONIC);
}

// The CPU time this thread has run: wall time beyond it, while it was not sleeping, is
// time the host did not run it.
int64_t ran_us() {
  return clock_us(CLOCK_THREAD_CPUTIME_ID);
}

struct Queue {
  uint16_t num = 0;
  nfq_q_handle* handle = nullptr;
  testbed::DelayQueue delay;
  int64_t window_us = 0;
  // Bursty loss, decided here (iptables' statistic match can only drop independently).
  std::optional<testbed::GilbertElliottLoss> burst;
};

int64_t release_window(int64_t delay_us, int64_t cap_us) {
  return std::min(cap_us, delay_us / kWindowShareOfDelay);
}

int on_packet(nfq_q_handle*, nfgenmsg*, nfq_data* nfa, void* data) {
  auto* q = static_cast<Queue*>(data);
  const nfqnl_msg_packet_hdr* hdr = nfq_get_msg_packet_hdr(nfa);
  if (!hdr) return 0;
  const uint32_t id = ntohl(hdr->packet_id);
  if (q->burst && q->burst->lose()) {
    // Dropped on arrival, as netem drops before it queues. A later batch verdict in FIFO
    // order covers only what the kernel still holds.
    nfq_set_verdict(q->handle, id, NF_DROP, 0, nullptr);
    return 0;
  }
  q->delay.admit(id, now_us());
  return 0;
}

void release(Queue& q, int64_t now, int64_t stalled_us) {
  const std::vector<uint32_t> ids = q.delay.release_due(now, q.window_us, stalled_us);
  if (ids.empty()) return;
  if (!q.delay.params().reorder) {
    // In FIFO order every earlier id is released too: one batch verdict covers them all.
    nfq_set_verdict_batch(q.handle, ids.back(), NF_ACCEPT);
    return;
  }
  for (uint32_t id : ids) nfq_set_verdict(q.handle, id, NF_ACCEPT, 0, nullptr);
}

// One node served: its namespace, its queues bound there, its control socket.
struct Node {
  std::string control;
  int control_dir = -1;  // the directory of `control`: where stats files go
  std::string netns;     // empty: the namespace this process runs in
  int netns_fd = -1;     // held, to read the node's kernel drop counters there
  nfq_handle* nfq = nullptr;
  int ctl = -1;
  std::map<uint16_t, Queue> queues;
};

// Runs `f` inside `ns_fd`'s network namespace (or where we are, for -1), then returns to
// `home`. Netlink sockets opened inside stay bound to that namespace.
template <typename F>
bool inside(int ns_fd, int home, F f) {
  if (ns_fd >= 0 && setns(ns_fd, CLONE_NEWNET) != 0) return false;
  f();
  return ns_fd < 0 || setns(home, CLONE_NEWNET) == 0;
}

// A node's queues' figures; the kernel's drop counters are per namespace: the node's.
void write_stats(const std::string& name, const Node& node, int home) {
  std::string text;
  inside(node.netns_fd, home, [&] {
    std::ifstream table("/proc/self/net/netfilter/nfnetlink_queue");
    text.assign(std::istreambuf_iterator<char>(table), std::istreambuf_iterator<char>());
  });
  const auto drops = testbed::parse_nfqueue_table(text);
  std::vector<testbed::DelayLineQueueStats> stats;
  for (const auto& [num, q] : node.queues) {
    testbed::DelayLineQueueStats s;
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
  const std::string out = testbed::format_delay_line_stats(stats);
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

int fail(const std::string& call) {
  std::fprintf(stderr, "testbed-delayline: %s: %s\n", call.c_str(), std::strerror(errno));
  return 1;
}

const char* const kUsage =
    "usage: testbed-delayline NODE... [--release-window-us N]\n"
    "  NODE: --control PATH [--netns /run/netns/NS] --queue "
    "NUM:DELAY_US:JITTER_US:SEED[:reorder][:ge=P,R,BAD,GOOD] ...\n";

// NUM:DELAY_US:JITTER_US:SEED, then any of ":reorder" and ":ge=P,R,BAD,GOOD" (the
// Gilbert-Elliott model's probabilities, netns/burst_loss.h).
bool parse_queue(const std::string& spec, Node& node) {
  std::vector<std::string> fields;
  std::stringstream in(spec);
  for (std::string f; std::getline(in, f, ':');) fields.push_back(f);
  unsigned num = 0;
  long long delay = 0, jitter = 0;
  unsigned long long seed = 0;
  char end = 0;
  if (fields.size() < 4 || std::sscanf(fields[0].c_str(), "%u%c", &num, &end) != 1 ||
      std::sscanf(fields[1].c_str(), "%lld%c", &delay, &end) != 1 ||
      std::sscanf(fields[2].c_str(), "%lld%c", &jitter, &end) != 1 ||
      std::sscanf(fields[3].c_str(), "%llu%c", &seed, &end) != 1 || num > UINT16_MAX) {
    return false;
  }
  bool reorder = false;
  std::optional<testbed::GilbertElliott> burst;
  for (size_t i = 4; i < fields.size(); ++i) {
    testbed::GilbertElliott m;
    if (fields[i] == "reorder") {
      reorder = true;
    } else if (std::sscanf(fields[i].c_str(), "ge=%lf,%lf,%lf,%lf%c", &m.p, &m.r, &m.bad_loss,
                           &m.good_loss, &end) == 4) {
      for (double x : {m.p, m.r, m.bad_loss, m.good_loss})
        if (!(x >= 0 && x <= 1)) return false;
      burst = m;
    } else {
      return false;
    }
  }
  Queue q{static_cast<uint16_t>(num), nullptr, testbed::DelayQueue({delay, jitter, reorder}, seed),
          0, std::nullopt};
  // Its own stream, apart from the jitter's: the same seed, scrambled by a constant.
  if (burst) q.burst.emplace(*burst, seed ^ kBurstSeedMask);
  node.queues.emplace(num, std::move(q));
  return true;
}

// Reads the nodes; false (after saying why) on a malformed command line.
bool parse(int argc, char** argv, std::vector<Node>& nodes, int64_t& window_cap_us) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i], val = argv[i + 1];
    if (opt == "--control") {
      nodes.emplace_back();
      nodes.back().control = val;
    } else if (opt == "--release-window-us") {
      window_cap_us = std::atoll(val.c_str());
    } else if ((opt == "--netns" || opt == "--queue") && nodes.empty()) {
      std::fprintf(stderr, "testbed-delayline: %s before any --control\n", opt.c_str());
      return false;
    } else if (opt == "--netns") {
      nodes.back().netns = val;
    } else if (opt == "--queue") {
      if (!parse_queue(val, nodes.back())) {
        std::fprintf(stderr, "testbed-delayline: bad --queue '%s'\n", val.c_str());
        return false;
      }
    } else {
      std::fprintf(stderr, "testbed-delayline: unknown option %s\n", opt.c_str());
      return false;
    }
  }
  if (nodes.empty()) return false;
  for (const Node& n : nodes) {
    if (n.queues.empty()) return false;
  }
  return true;
}

// Binds a node's queues inside its namespace, then its control socket; 0, or the exit
// status after saying which call failed.
int open_node(Node& node, int home) {
  if (!node.netns.empty()) {
    node.netns_fd = open(node.netns.c_str(), O_RDONLY | O_CLOEXEC);
    if (node.netns_fd < 0) return fail("open(" + node.netns + ")");
  }
  std::string failed;
  const bool back = inside(node.netns_fd, home, [&] {
    node.nfq = nfq_open();
    if (!node.nfq) {
      failed = "nfq_open";
      return;
    }
    nfnl_rcvbufsiz(nfq_nfnlh(node.nfq), kReceiveBuffer);
    for (auto& [num, q] : node.queues) {
      q.handle = nfq_create_queue(node.nfq, num, on_packet, &q);
      if (!q.handle) {
        failed = "nfq_create_queue " + std::to_string(num);
        return;
      }
      if (nfq_set_mode(q.handle, NFQNL_COPY_META, 0) < 0) {
        failed = "nfq_set_mode";
        return;
      }
      nfq_set_queue_maxlen(q.handle, kQueueMaxLen);
      nfq_set_queue_flags(q.handle, NFQA_CFG_F_GSO, NFQA_CFG_F_GSO);
    }
  });
  if (!back) return fail("setns(" + node.netns + ")");
  if (!failed.empty()) return fail(failed + " in " + (node.netns.empty() ? "here" : node.netns));
  node.ctl = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", node.control.c_str());
  unlink(node.control.c_str());
  const auto slash = node.control.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : node.control.substr(0, slash);
  node.control_dir = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (node.control_dir < 0) return fail("open(" + dir + ")");
  const int on = 1;
  if (node.ctl < 0 || setsockopt(node.ctl, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
    return fail("setsockopt(SO_PASSCRED)");
  // Bound last: the socket's existence tells the controller the queues are ready. The
  // socket is made under a umask that leaves it to its owner (0600): the file appears only
  // once bound, and must never be connectable by another user in between.
  const mode_t old_mask = umask(0177);
  const bool bound = bind(node.ctl, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  umask(old_mask);
  if (!bound) return fail("bind(" + node.control + ")");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t window_cap_us = kDefaultWindowCapUs;
  std::vector<Node> nodes;
  if (!parse(argc, argv, nodes, window_cap_us)) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  for (Node& n : nodes) {
    for (auto& [num, q] : n.queues)
      q.window_us = release_window(q.delay.params().delay_us, window_cap_us);
  }
  umask(077);  // its stats files are root's alone, as everything of a lab
  signal(SIGTERM, on_stop);
  signal(SIGINT, on_stop);
  prctl(PR_SET_TIMERSLACK, 1UL);  // wake within a microsecond of a release, not 50 us late
  // Our pages stay in memory: a virtual machine that pages out cold file pages (DAMON's
  // pageout, as our CI machine does) would otherwise have a release wait on a disk read of
  // our code. Best effort, as the priority below.
  if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
    std::fprintf(stderr, "testbed-delayline: mlockall: %s\n", std::strerror(errno));
  const sched_param realtime{kRealtimePriority};
  if (sched_setscheduler(0, SCHED_FIFO, &realtime) != 0)  // best effort: health shows the cost
    std::fprintf(stderr, "testbed-delayline: sched_setscheduler(SCHED_FIFO): %s\n",
                 std::strerror(errno));
  const int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) return fail("open(/proc/self/ns/net)");
  for (Node& n : nodes) {
    if (const int status = open_node(n, home); status != 0) return status;
  }

  std::vector<char> buf(kReceiveBatch * kNotificationBytes);
  std::vector<iovec> iov(kReceiveBatch);
  std::vector<mmsghdr> msgs(kReceiveBatch);
  for (int i = 0; i < kReceiveBatch; ++i) {
    iov[i] = {buf.data() + i * kNotificationBytes, kNotificationBytes};
    msgs[i].msg_hdr = {};
    msgs[i].msg_hdr.msg_iov = &iov[i];
    msgs[i].msg_hdr.msg_iovlen = 1;
  }
  // Two descriptors per node: its queues' netlink socket, then its control socket.
  std::vector<pollfd> fds;
  for (const Node& n : nodes) {
    fds.push_back({nfq_fd(n.nfq), POLLIN, 0});
    fds.push_back({n.ctl, POLLIN, 0});
  }
  // The host's stalls, told from the emulator's own lateness (see host_stall.h). At
  // SCHED_FIFO no task of this host outranks us, so a stall is the host not running our
  // loop: a virtual machine's CPU taken by its hypervisor, an interrupt storm, a kernel
  // section that cannot be preempted.
  testbed::HostStallClock host_stalls(now_us(), ran_us());
  while (!g_stop) {
    const int64_t top = now_us();
    int64_t next = -1;
    for (auto& n : nodes) {
      for (auto& [num, q] : n.queues) {
        const int64_t r = q.delay.next_release();
        if (r >= 0 && (next < 0 || r - q.window_us < next)) next = r - q.window_us;
      }
    }
    timespec timeout{}, *tp = nullptr;
    if (next >= 0) {
      const int64_t wait = std::max<int64_t>(0, next - top);
      timeout = {static_cast<time_t>(wait / 1000000), static_cast<long>(wait % 1000000) * 1000};
      tp = &timeout;
    }
    const int64_t asleep = now_us(), ran_asleep = ran_us();
    if (ppoll(fds.data(), fds.size(), tp, nullptr) < 0 && errno != EINTR) return fail("ppoll");
    const int64_t woke = now_us(), charged_asleep = ran_us() - ran_asleep;
    // Asked: until the next release is due (from when ppoll began, if that was later), or
    // until a packet comes; a packet may end it sooner.
    const int64_t asked = next >= 0 ? std::max(next, asleep) : woke;
    const int64_t slept = std::min(woke, asked) - asleep;
    for (size_t i = 0; i < nodes.size(); ++i) {
      Node& n = nodes[i];
      if (fds[2 * i].revents & POLLIN) {
        for (int got = kReceiveBatch; got == kReceiveBatch;) {
          got = recvmmsg(fds[2 * i].fd, msgs.data(), kReceiveBatch, MSG_DONTWAIT, nullptr);
          for (int k = 0; k < got; ++k)
            nfq_handle_packet(n.nfq, static_cast<char*>(iov[k].iov_base),
                              static_cast<int>(msgs[k].msg_len));
        }
      }
      if (fds[2 * i + 1].revents & POLLIN) handle_control(n, window_cap_us, home);
    }
    const int64_t now = now_us();
    const int64_t stalled = host_stalls.end_turn(now, ran_us(), slept, charged_asleep);
    for (auto& n : nodes) {
      for (auto& [num, q] : n.queues) release(q, now, stalled);
    }
  }
  for (Node& n : nodes) {
    for (auto& [num, q] : n.queues) nfq_destroy_queue(q.handle);
    nfq_close(n.nfq);
    close(n.ctl);
    unlink(n.control.c_str());
  }
  return 0;
}
