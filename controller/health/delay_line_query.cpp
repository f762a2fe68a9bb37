#include "controller/health/delay_line_query.h"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
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

// Sends "stats FILE" to `node`'s delay line on `fd`; false when its socket is not there.
bool ask(int fd, const std::string& lab_dir, const std::string& node, uint64_t call) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s",
                delay_line_socket(lab_dir, node).c_str());
  const std::string message = "stats " + answer_name(node, call);
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

// Takes each awaited answer as inotify reports its rename into `lab_dir`, until none is
// awaited or the deadline; those still awaited stay in `awaited`.
void take_as_they_land(int watch, const std::string& lab_dir,
                       std::chrono::steady_clock::time_point deadline,
                       std::map<std::string, std::string>& awaited, DelayLineSnapshot& out) {
  alignas(inotify_event) char buf[16384];
  while (!awaited.empty()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{watch, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count()) + 1) <= 0) continue;
    const ssize_t n = read(watch, buf, sizeof buf);
    for (ssize_t at = 0; n > 0 && at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      if (e->len == 0) continue;
      const auto it = awaited.find(e->name);
      if (it == awaited.end()) continue;
      if (auto stats = take_answer(lab_dir + "/" + it->first)) {
        for (const auto& q : *stats) out[it->second][q.queue] = q;
      }
      awaited.erase(it);
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
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (watch >= 0) close(watch);
    return out;
  }
  std::vector<int> full;
  std::vector<std::string> pending;
  for (const auto& node : nodes) {
    bool sent = ask(fd, lab_dir, node, call);
    if (!sent && errno == EAGAIN) {
      full.push_back(fd);
      fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) break;
      sent = ask(fd, lab_dir, node, call);
    }
    if (sent) pending.push_back(node);
  }
  if (fd >= 0) close(fd);
  for (const int f : full) close(f);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  if (watch >= 0) {
    std::map<std::string, std::string> awaited;  // answer's file name -> node
    for (const auto& node : pending) awaited[answer_name(node, call)] = node;
    take_as_they_land(watch, lab_dir, deadline, awaited, out);
    close(watch);
    pending.clear();
    for (const auto& [file, node] : awaited) pending.push_back(node);
  }
  while (!pending.empty()) {
    std::vector<std::string> still;
    for (const auto& node : pending) {
      const std::string file = lab_dir + "/" + answer_name(node, call);
      if (!std::filesystem::exists(file)) {
        still.push_back(node);
      } else if (auto stats = take_answer(file)) {
        for (const auto& q : *stats) out[node][q.queue] = q;
      }
    }
    pending.swap(still);
    if (pending.empty() || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(kAnswerPoll);
  }
  // A late answer must not be left behind in the lab's directory.
  for (const auto& node : pending) std::filesystem::remove(lab_dir + "/" + answer_name(node, call));
  return out;
}

}  // namespace testbed
