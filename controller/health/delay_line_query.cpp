#include "controller/health/delay_line_query.h"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "controller/dynamics/link_control.h"

namespace testbed {

namespace {

// How often the answers' files are looked for: a delay line answers within a turn of its
// loop (well under a millisecond when it is not starved).
constexpr auto kAnswerPoll = std::chrono::milliseconds(1);

// The file a delay line writes its answer to for this call: in the lab's directory,
// beside its control socket (the request names the file only, never a directory:
// delay_line_main.cpp). Named for this process and call, so no earlier answer can be
// taken for this one, and none need be removed first (an unlink costs about 0.1 ms on
// ext4: 13% of a 1000-node `status`).
std::string answer_name(const std::string& node, uint64_t call) {
  return "health-" + node + "-" + std::to_string(getpid()) + "-" + std::to_string(call) + ".stats";
}

// Sends "stats FILE REPLY" to `node`'s delay line on `fd` (REPLY: this call's socket, when
// it has one); false when its socket is not there.
bool ask(int fd, const std::string& lab_dir, const std::string& node, uint64_t call,
         const std::string& reply) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s",
                delay_line_socket(lab_dir, node).c_str());
  const std::string message =
      "stats " + answer_name(node, call) + (reply.empty() ? "" : " " + reply);
  // Not waiting: a starved delay line's full socket is a delay line that did not answer.
  return sendto(fd, message.data(), message.size(), MSG_DONTWAIT,
                reinterpret_cast<const sockaddr*>(&addr),
                sizeof addr) == static_cast<ssize_t>(message.size());
}

// The answer in `file`, which is gone afterwards; nullopt when it does not parse.
std::optional<std::vector<DelayLineQueueStats>> take_answer(const std::string& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  in.close();
  std::filesystem::remove(file);
  try {
    return parse_delay_line_stats(text.str());
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// This call's socket for answers sent as datagrams (delay_line_stats.h), bound in the lab's
// directory for the call's length. Unbound (fd -1) when the path is too long for a socket's
// name or the bind fails: every answer then comes as a file.
class ReplySocket {
 public:
  ReplySocket(const std::string& lab_dir, uint64_t call)
      : name_("stats-" + std::to_string(getpid()) + "-" + std::to_string(call) + ".sock"),
        path_(lab_dir + "/" + name_) {
    sockaddr_un addr{};
    if (path_.size() >= sizeof addr.sun_path) return;
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd_ < 0) return;
    // What waits here is bounded by count (net.unix.max_dgram_qlen, 10 by default), not by
    // this socket's buffer: the delay lines send a turn's answers in one datagram, and the
    // asker takes them while it still asks (query_delay_lines).
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    if (bind(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
        chmod(path_.c_str(), 0600) != 0) {
      close(fd_);
      fd_ = -1;
      unlink(path_.c_str());
    }
  }
  ~ReplySocket() {
    if (fd_ < 0) return;
    close(fd_);
    unlink(path_.c_str());
  }
  ReplySocket(const ReplySocket&) = delete;
  ReplySocket& operator=(const ReplySocket&) = delete;
  int fd() const { return fd_; }
  std::string name() const { return fd_ < 0 ? "" : name_; }

 private:
  std::string name_, path_;
  int fd_ = -1;
};

// The answers awaited, by the file each may come in, and by the socket each may come from.
struct Awaited {
  std::map<std::string, std::string> by_file;    // answer's file name -> node
  std::map<std::string, std::string> by_sender;  // node's control socket -> answer's file
};

// Takes every answer waiting on the reply socket: each datagram holds the answers of one
// delay line's turn (split_stats_sections). A section from a socket not awaited, or that
// does not parse, is dropped: a node whose answer does not parse has no figures.
void take_replies(int fd, const std::string& lab_dir, Awaited& awaited, DelayLineSnapshot& out) {
  if (fd < 0) return;
  std::string buf(kMaxStatsReplyBytes + 1, '\0');
  for (;;) {
    const ssize_t n = recv(fd, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n < 0) return;
    std::vector<std::pair<std::string, std::string>> sections;
    try {
      sections = split_stats_sections(buf.substr(0, static_cast<size_t>(n)));
    } catch (const std::invalid_argument&) {
      continue;
    }
    for (const auto& [socket_name, text] : sections) {
      const auto sender = awaited.by_sender.find(lab_dir + "/" + socket_name);
      if (sender == awaited.by_sender.end()) continue;
      const auto file = awaited.by_file.find(sender->second);
      if (file != awaited.by_file.end()) {
        try {
          for (const auto& q : parse_delay_line_stats(text)) out[file->second][q.queue] = q;
        } catch (const std::invalid_argument&) {
        }
        awaited.by_file.erase(file);
      }
      awaited.by_sender.erase(sender);
    }
  }
}

// Takes each awaited answer as inotify reports its rename into `lab_dir`, or as it lands on
// the reply socket, until none is awaited or the deadline; those still awaited stay.
void take_as_they_land(int watch, int reply, const std::string& lab_dir,
                       std::chrono::steady_clock::time_point deadline, Awaited& awaited,
                       DelayLineSnapshot& out) {
  alignas(inotify_event) char buf[16384];
  while (!awaited.by_file.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p[2] = {{watch, POLLIN, 0}, {reply, POLLIN, 0}};
    if (poll(p, reply < 0 ? 1 : 2, static_cast<int>(left.count()) + 1) <= 0) continue;
    if (p[1].revents & POLLIN) take_replies(reply, lab_dir, awaited, out);
    if (!(p[0].revents & POLLIN)) continue;
    const ssize_t n = read(watch, buf, sizeof buf);
    for (ssize_t at = 0; n > 0 && at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      if (e->len == 0) continue;
      const auto it = awaited.by_file.find(e->name);
      if (it == awaited.by_file.end()) continue;
      if (auto stats = take_answer(lab_dir + "/" + it->first)) {
        for (const auto& q : *stats) out[it->second][q.queue] = q;
      }
      awaited.by_sender.erase(delay_line_socket(lab_dir, it->second));
      awaited.by_file.erase(it);
    }
  }
}

}  // namespace

DelayLineSnapshot query_delay_lines(const std::string& lab_dir,
                                    const std::vector<std::string>& nodes, int timeout_ms) {
  // Every request goes out before any answer is awaited: the delay lines answer side by
  // side, so a lab of 1000 nodes costs one wait, not 1000 (one at a time, `status` of such a
  // lab spent 2 s here, most of it in the sleeps between looks).
  DelayLineSnapshot out;
  static std::atomic<uint64_t> calls{0};
  const uint64_t call = calls++;
  // A datagram counts against its sender's buffer until the delay line reads it, and a
  // socket's default buffer holds about 200 of them: a socket whose buffer is full is put
  // away for a new one (measured: 177 of 1000 requests refused with EAGAIN on one socket).
  // The answers are watched for as they land (the delay line renames its file into the
  // lab's directory), from before the first request: no look at a file that is not there
  // yet, where looking at each pending file every millisecond cost as much as the answers.
  int watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (watch >= 0 && inotify_add_watch(watch, lab_dir.c_str(), IN_MOVED_TO) < 0) {
    close(watch);
    watch = -1;
  }
  // Answers come as datagrams where they fit (no file made and removed per answer).
  const ReplySocket reply(lab_dir, call);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (watch >= 0) close(watch);
    return out;
  }
  std::vector<int> full;
  Awaited awaited;
  for (const auto& node : nodes) {
    bool sent = ask(fd, lab_dir, node, call, reply.name());
    if (!sent && errno == EAGAIN) {
      full.push_back(fd);
      fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) break;
      sent = ask(fd, lab_dir, node, call, reply.name());
    }
    if (!sent) continue;
    awaited.by_file[answer_name(node, call)] = node;
    awaited.by_sender[delay_line_socket(lab_dir, node)] = answer_name(node, call);
    // The first answers come while the rest are asked: taken now, the delay lines need not
    // wait for room (a socket queues 10 datagrams).
    take_replies(reply.fd(), lab_dir, awaited, out);
  }
  if (fd >= 0) close(fd);
  for (const int f : full) close(f);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  if (watch >= 0) {
    take_as_they_land(watch, reply.fd(), lab_dir, deadline, awaited, out);
    close(watch);
  }
  while (!awaited.by_file.empty()) {
    take_replies(reply.fd(), lab_dir, awaited, out);
    for (auto it = awaited.by_file.begin(); it != awaited.by_file.end();) {
      const std::string file = lab_dir + "/" + it->first;
      if (!std::filesystem::exists(file)) {
        ++it;
        continue;
      }
      if (auto stats = take_answer(file)) {
        for (const auto& q : *stats) out[it->second][q.queue] = q;
      }
      it = awaited.by_file.erase(it);
    }
    if (awaited.by_file.empty() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(kAnswerPoll);
  }
  // A late answer must not be left behind in the lab's directory.
  for (const auto& [file, node] : awaited.by_file) std::filesystem::remove(lab_dir + "/" + file);
  return out;
}

}  // namespace testbed
