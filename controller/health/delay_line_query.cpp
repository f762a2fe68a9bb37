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

std::optional<std::vector<DelayLineQueueStats>> query_delay_line(const std::string& lab_dir,
                                                                 const std::string& node,
                                                                 int timeout_ms) {
  // The delay line writes it beside its control socket, in the lab's directory: the request
  // names the file only, never a directory (delay_line_main.cpp).
  const std::string name = "health-" + node + "-" + std::to_string(getpid()) + ".stats";
  const std::string file = lab_dir + "/" + name;
  std::filesystem::remove(file);
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s",
                delay_line_socket(lab_dir, node).c_str());
  const std::string message = "stats " + name;
  const bool sent =
      sendto(fd, message.data(), message.size(), 0, reinterpret_cast<const sockaddr*>(&addr),
             sizeof addr) == static_cast<ssize_t>(message.size());
  close(fd);
  if (!sent) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!std::filesystem::exists(file)) {
    if (std::chrono::steady_clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(file);
  try {
    return parse_delay_line_stats(text.str());
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

DelayLineSnapshot query_delay_lines(const std::string& lab_dir,
                                    const std::vector<std::string>& nodes, int timeout_ms) {
  DelayLineSnapshot out;
  for (const auto& node : nodes) {
    if (auto stats = query_delay_line(lab_dir, node, timeout_ms)) {
      for (const auto& q : *stats) out[node][q.queue] = q;
    }
  }
  return out;
}

}  // namespace testbed
