#include "controller/health/delay_line_query.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "controller/dynamics/link_control.h"

namespace testbed {

namespace {

// How often the answers' files are looked for: a delay line answers within a turn of its
// loop (well under a millisecond when it is not starved).
constexpr auto kAnswerPoll = std::chrono::milliseconds(1);

// The file a delay line writes its answer to for this process: in the lab's directory,
// beside its control socket (the request names the file only, never a directory:
// delay_line_main.cpp).
std::string answer_name(const std::string& node) {
  return "health-" + node + "-" + std::to_string(getpid()) + ".stats";
}

// Sends "stats FILE" to `node`'s delay line on `fd`; false when its socket is not there.
bool ask(int fd, const std::string& lab_dir, const std::string& node) {
  std::filesystem::remove(lab_dir + "/" + answer_name(node));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s",
                delay_line_socket(lab_dir, node).c_str());
  const std::string message = "stats " + answer_name(node);
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

}  // namespace

DelayLineSnapshot query_delay_lines(const std::string& lab_dir,
                                    const std::vector<std::string>& nodes, int timeout_ms) {
  // Every request goes out before any answer is awaited: the delay lines answer side by
  // side, so a lab of 1000 nodes costs one wait, not 1000 (one at a time, `status` of such a
  // lab spent 2 s here, most of it in the sleeps between looks).
  DelayLineSnapshot out;
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return out;
  std::vector<std::string> pending;
  for (const auto& node : nodes) {
    if (ask(fd, lab_dir, node)) pending.push_back(node);
  }
  close(fd);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!pending.empty()) {
    std::vector<std::string> still;
    for (const auto& node : pending) {
      const std::string file = lab_dir + "/" + answer_name(node);
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
  for (const auto& node : pending) std::filesystem::remove(lab_dir + "/" + answer_name(node));
  return out;
}

}  // namespace testbed
