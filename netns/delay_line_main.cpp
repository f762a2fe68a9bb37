// testbed-delayline: holds the packets arriving on nodes' interfaces for each link
// direction's delay (and jitter), where the kernel has no sch_netem. In each receiving
// node's namespace, iptables' NFQUEUE target in PREROUTING hands it each packet (metadata
// only: the packet itself stays in the kernel) and it returns an ACCEPT verdict when the
// packet's time has come. Holding packets on the receiving side keeps TCP at full rate; on
// the sender's side TCP Small Queues would count them against the socket.
//
// One process serves one node or many: each queue is bound through its own netlink socket
// opened inside its node's namespace (--netns; without it, the namespace the process runs
// in), and each node keeps its own control socket.
//
// Wake-ups are the cost here (on a paravirtualized guest each is hypervisor calls and two
// context switches), so the loop wakes for releases, not for arrivals. NFQUEUE stamps each
// packet with the wall clock as it queues it (NFQA_TIMESTAMP: the kernel's own stamp is
// cleared on ingress, rx_timestamp_reset.h, so it stamps afresh while any socket of the
// host asks for receive timestamps, and we hold one that does), so a packet's release time
// does not depend on when we read it. A queue's socket is therefore watched only while the
// queue holds nothing: while it holds packets, whatever arrives leaves after them (FIFO),
// and is read when the queue next runs empty. A queue that reorders, or whose packets came
// without a stamp, is watched always, as before.
//
// usage: testbed-delayline NODE... [--release-window-us N]
//   NODE: --control PATH [--netns /run/netns/NS]
//         --queue NUM:DELAY_US:JITTER_US:SEED[:reorder][:ge=P,R,BAD,GOOD]...
// ge= gives the queue bursty loss (netns/burst_loss.h), decided here per packet.
// Control datagrams on a node's PATH (a filesystem socket, reachable from any namespace):
//   "set NUM DELAY_US JITTER_US"   changes a queue's delay for packets that arrive from then on
//   "stats NAME [REPLY]"           sends the node's queues' release lateness and kernel drops
//                                  (see delay_line_stats.h) to the socket REPLY beside PATH,
//                                  in one datagram with the turn's other answers to it, or
//                                  when it does not fit writes them to the file NAME beside
//                                  PATH, atomically by rename (both plain names: no directory)
// The control socket is its owner's alone (mode 0600), and a datagram from any other user
// (its SCM_CREDENTIALS uid) is dropped, counted and logged: a request makes root write.
#include <arpa/inet.h>
#include <fcntl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "netns/delay_line_args.h"
#include "netns/delay_line_control.h"
#include "netns/delay_line_node.h"
#include "netns/host_stall.h"
#include "netns/open_files_limit.h"
#include "netns/readiness_set.h"
#include "netns/wake_margin.h"

namespace {

using namespace testbed::delay_line;

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
// Packets due within a queue's release window after the first due leave with it, in one
// wake-up and one batch verdict. The window is 2% of the queue's delay (a delay error TCP
// cannot tell from path variation) and at most 1 ms; 0 means exact. The cap was 200 us
// while the loop also woke for every arrival; at 66 Mbit/s and 30 ms (600 us) a wake-up
// now releases about two packets instead of one, and the delay line's CPU per packet fell
// to a quarter with the rest of this design (docs/benchmarks.md).
constexpr int64_t kDefaultWindowCapUs = 1000;
// The delay line is the emulated network's clock, so it runs under SCHED_FIFO: a release
// then preempts the agents' compute instead of waiting its turn behind them. Under the
// default scheduler a light run (20 Mbit/s, 30% CPU) saw its p99 release 2 ms late on a
// loaded 2-core host, in bursts where two runnable agents held both cores. The priority is
// the lowest that still outranks every normal task; the kernel's real-time throttling
// (sched_rt_runtime_us, 95% of each second) keeps an overloaded delay line from starving
// the host, and health then reports the lateness as before.
constexpr int kRealtimePriority = 1;
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

// A kernel stamp later than our clock by more than this, or older than the next, is not
// the arrival's (the wall clock was stepped): the packet is taken as arriving when read,
// and its queue is watched from then on, as when the kernel gives no stamp.
constexpr int64_t kStampAheadUs = 1000;
constexpr int64_t kStampAgeUs = 60 * 1000000;
// How often the wall clock's offset from the monotonic one is read again: NTP slews the
// wall clock by at most 500 ppm, 5 us in this time.
constexpr int64_t kWallOffsetRefreshUs = 10000;

// Our clock at this turn's wake-up: the arrival of a packet that came without a stamp.
int64_t g_read_at = 0;
// CLOCK_REALTIME less CLOCK_MONOTONIC: the kernel's stamps are wall-clock time.
int64_t g_wall_offset = 0;
// What the loop did, said when it ends: its cost is per turn, and a turn's per packet.
unsigned long long g_turns = 0, g_packets = 0, g_verdicts = 0;

int on_packet(nfq_q_handle*, nfgenmsg*, nfq_data* nfa, void* data) {
  auto* q = static_cast<Queue*>(data);
  const nfqnl_msg_packet_hdr* hdr = nfq_get_msg_packet_hdr(nfa);
  if (!hdr) return 0;
  const uint32_t id = ntohl(hdr->packet_id);
  int64_t arrival = g_read_at;
  timeval stamp{};
  if (q->stamped && nfq_get_timestamp(nfa, &stamp) == 0) {
    const int64_t t = int64_t(stamp.tv_sec) * 1000000 + stamp.tv_usec - g_wall_offset;
    if (t <= g_read_at + kStampAheadUs && t >= g_read_at - kStampAgeUs)
      arrival = t;
    else
      q->stamped = false;
  } else {
    q->stamped = false;
  }
  if (q->burst && q->burst->lose()) {
    // Dropped on arrival, as netem drops before it queues. A later batch verdict in FIFO
    // order covers only what the kernel still holds.
    nfq_set_verdict(q->handle, id, NF_DROP, 0, nullptr);
    return 0;
  }
  q->delay.admit(id, arrival);
  ++g_packets;
  return 0;
}

// The host's last stall: how long, and when it ended (our wake-up after it).
struct Stall {
  int64_t us = 0, end = -1;
};

void release(Queue& q, int64_t now, const Stall& stall) {
  const std::vector<uint32_t> ids = q.delay.release_due(now, q.window_us, stall.us, stall.end);
  if (ids.empty()) return;
  ++g_verdicts;
  if (!q.delay.params().reorder) {
    // In FIFO order every earlier id is released too: one batch verdict covers them all.
    nfq_set_verdict_batch(q.handle, ids.back(), NF_ACCEPT);
    return;
  }
  for (uint32_t id : ids) nfq_set_verdict(q.handle, id, NF_ACCEPT, 0, nullptr);
}

// Reads a queue's notifications, a batch per system call, until its socket is empty.
class Receiver {
 public:
  Receiver() : buf_(kReceiveBatch * kNotificationBytes), iov_(kReceiveBatch), msgs_(kReceiveBatch) {
    for (int i = 0; i < kReceiveBatch; ++i) {
      iov_[i] = {buf_.data() + i * kNotificationBytes, kNotificationBytes};
      msgs_[i].msg_hdr = {};
      msgs_[i].msg_hdr.msg_iov = &iov_[i];
      msgs_[i].msg_hdr.msg_iovlen = 1;
    }
  }

  void drain(Queue& q) {
    const int fd = nfq_fd(q.nfq);
    for (int got = kReceiveBatch; got == kReceiveBatch;) {
      got = recvmmsg(fd, msgs_.data(), kReceiveBatch, MSG_DONTWAIT, nullptr);
      // The kernel could not queue a notification (its packet is still held, and leaves
      // with the next batch verdict): said once by the socket, then reading goes on.
      if (got < 0 && errno == ENOBUFS) {
        got = kReceiveBatch;
        continue;
      }
      for (int k = 0; k < got; ++k)
        nfq_handle_packet(q.nfq, static_cast<char*>(iov_[k].iov_base),
                          static_cast<int>(msgs_[k].msg_len));
    }
  }

 private:
  std::vector<char> buf_;
  std::vector<iovec> iov_;
  std::vector<mmsghdr> msgs_;
};

// What a watch of the loop's ReadinessSet is: a node's control socket (no queue), or one of
// its queues' sockets.
struct Watched {
  Node* node;
  Queue* queue;
};

int fail(const std::string& call) {
  std::fprintf(stderr, "testbed-delayline: %s: %s\n", call.c_str(), std::strerror(errno));
  return 1;
}

// Binds a node's queues inside its namespace, then its control socket; 0, or the exit
// status after saying which call failed.
// `dirs`: the control directories this process holds open, by path (one for a lab).
int open_node(Node& node, int home, std::map<std::string, int>& dirs) {
  std::string failed;
  const bool back = inside(node.netns, home, [&] {
    for (auto& [num, q] : node.queues) {
      q.nfq = nfq_open();
      if (!q.nfq) {
        failed = "nfq_open";
        return;
      }
      nfnl_rcvbufsiz(nfq_nfnlh(q.nfq), kReceiveBuffer);
      q.handle = nfq_create_queue(q.nfq, num, on_packet, &q);
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
  if (!back) return fail("entering " + node.netns + " or leaving it");
  if (!failed.empty()) return fail(failed + " in " + (node.netns.empty() ? "here" : node.netns));
  node.ctl = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", node.control.c_str());
  unlink(node.control.c_str());
  const auto slash = node.control.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : node.control.substr(0, slash);
  auto [held, fresh] = dirs.try_emplace(dir, -1);
  if (fresh) held->second = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  node.control_dir = held->second;
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
  // Descriptors held per node: its control socket, and one per queue (its namespace is
  // opened when entered, its directory shared); a process serving hundreds of nodes passes
  // a usual soft limit of 1024 (open_files_limit.h), so it raises its own.
  constexpr size_t kPerNode = 1, kOtherFiles = 64;
  size_t wanted = kOtherFiles;
  for (const Node& n : nodes) wanted += kPerNode + n.queues.size();
  testbed::ensure_open_files_limit(wanted);
  const int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home < 0) return fail("open(/proc/self/ns/net)");
  std::map<std::string, int> dirs;
  for (Node& n : nodes) {
    if (const int status = open_node(n, home, dirs); status != 0) return status;
  }

  // Held open for its option alone: while a socket of the host asks for receive
  // timestamps (SO_TIMESTAMP, as ping's does) the kernel stamps packets as NFQUEUE queues
  // them. Best effort: without stamps every queue is watched, one wake-up per arrival.
  const int stamp_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  if (stamp_sock < 0 || setsockopt(stamp_sock, SOL_SOCKET, SO_TIMESTAMP, &on, sizeof on) != 0)
    std::fprintf(stderr, "testbed-delayline: SO_TIMESTAMP: %s\n", std::strerror(errno));
  Receiver receiver;
  // Every node's control socket, always watched, and its queues' sockets, watched while
  // their queues are empty; a watch's tag is its index in `watched`.
  testbed::ReadinessSet waits;
  if (!waits.ok()) return fail("epoll_create1");
  std::vector<Watched> watched;
  for (Node& n : nodes) {
    watched.push_back({&n, nullptr});
    if (!waits.add(n.ctl, watched.size() - 1, true)) return fail("epoll_ctl(control)");
    for (auto& [num, q] : n.queues) {
      q.tag = watched.size();
      watched.push_back({&n, &q});
      if (!waits.add(nfq_fd(q.nfq), q.tag, q.watched())) return fail("epoll_ctl(queue)");
    }
  }
  std::vector<uint32_t> ready;
  // The host's stalls, told from the emulator's own lateness (see host_stall.h). At
  // SCHED_FIFO no task of this host outranks us, so a stall is the host not running our
  // loop: a virtual machine's CPU taken by its hypervisor, an interrupt storm, a kernel
  // section that cannot be preempted.
  testbed::HostStallClock host_stalls(now_us(), ran_us());
  // Each clock read is a system call on a guest whose clock has no vDSO path (kvm-clock
  // here): a turn reads each clock twice, around its sleep.
  int64_t asleep = now_us();
  int64_t wall_offset_at = asleep;
  testbed::WakeMargin margin;
  Stall stall;
  g_wall_offset = clock_us(CLOCK_REALTIME) - asleep;
  while (!g_stop) {
    int64_t next = -1;
    for (auto& n : nodes) {
      for (auto& [num, q] : n.queues) {
        if (!waits.set(q.tag, q.watched())) return fail("epoll_ctl");
        const int64_t r = q.delay.next_release();
        const int64_t w = margin.before(r, q.window_us);
        if (r >= 0 && (next < 0 || w < next)) next = w;
      }
    }
    timespec timeout{}, *tp = nullptr;
    if (next >= 0) {
      const int64_t wait = std::max<int64_t>(0, next - asleep);
      timeout = {static_cast<time_t>(wait / 1000000), static_cast<long>(wait % 1000000) * 1000};
      tp = &timeout;
    }
    const int64_t ran_asleep = ran_us();
    if (waits.wait(tp, ready) < 0) return fail("waiting");
    const int64_t woke = now_us(), ran_woke = ran_us();
    ++g_turns;
    if (next >= 0 && woke >= next) margin.woke(next, woke);
    // Asked: until the next release is due (from when the wait began, if that was later), or
    // until a packet comes; a packet may end it sooner. The turn is accounted at its
    // wake-up: the host's stall is in the wall time since the last wake-up beyond our own
    // CPU before this sleep and the sleep asked (host_stall.h).
    const int64_t asked = next >= 0 ? std::max(next, asleep) : woke;
    const int64_t slept = std::min(woke, asked) - asleep;
    if (const int64_t stalled = host_stalls.end_turn(woke, ran_woke, slept, ran_woke - ran_asleep);
        stalled > 0)
      stall = {stalled, woke};
    g_read_at = woke;
    if (woke - wall_offset_at >= kWallOffsetRefreshUs) {
      g_wall_offset = clock_us(CLOCK_REALTIME) - woke;
      wall_offset_at = woke;
    }
    for (const uint32_t tag : ready) {
      const Watched& w = watched[tag];
      if (w.queue)
        receiver.drain(*w.queue);
      else
        handle_control(*w.node, window_cap_us, home);
    }
    for (auto& n : nodes) {
      for (auto& [num, q] : n.queues) release(q, woke, stall);
    }
    send_answers();  // after the releases, which are due now
    asleep = now_us();
  }
  std::fprintf(stderr, "testbed-delayline: %llu turns, %llu packets, %llu verdicts\n", g_turns,
               g_packets, g_verdicts);
  for (Node& n : nodes) {
    for (auto& [num, q] : n.queues) {
      nfq_destroy_queue(q.handle);
      nfq_close(q.nfq);
    }
    close(n.ctl);
    unlink(n.control.c_str());
  }
  return 0;
}
