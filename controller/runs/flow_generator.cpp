#include "controller/runs/flow_generator.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace testbed {

double pareto_scale(double mean, double shape) {
  return mean * (shape - 1) / shape;
}

// E[min(X, m)] for X ~ Pareto(scale s, shape a), m >= s: the integral of the survival
// function s^a x^-a from 0 to m, which is s + (s^a (m^(1-a) - s^(1-a))) / (1 - a).
double cut_pareto_mean(double scale, double shape, double max) {
  if (max <= scale) return max;
  return scale + std::pow(scale, shape) * (std::pow(max, 1 - shape) - std::pow(scale, 1 - shape)) /
                     (1 - shape);
}

FlowDraws::FlowDraws(uint64_t load_bits_per_s, uint64_t mean_size, uint64_t max_size, double shape,
                     uint64_t seed)
    : rng_(seed),
      scale_(pareto_scale(static_cast<double>(mean_size), shape)),
      shape_(shape),
      max_(static_cast<double>(max_size)) {
  cut_mean_ = cut_pareto_mean(scale_, shape_, max_);
  arrivals_per_s_ = static_cast<double>(load_bits_per_s) / 8 / cut_mean_;
}

double FlowDraws::next_gap_s() {
  return std::exponential_distribution<double>(arrivals_per_s_)(rng_);
}

uint64_t FlowDraws::next_size() {
  // Inverse transform: scale / U^(1/shape), U uniform in (0, 1].
  const double u = 1.0 - std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
  const double x = std::min(scale_ / std::pow(u, 1.0 / shape_), max_);
  return std::max<uint64_t>(1, static_cast<uint64_t>(x));
}

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kReportEvery = std::chrono::seconds(10);
constexpr size_t kChunk = 64 * 1024;  // bytes per write or read: a socket buffer's worth

sockaddr_in endpoint(const std::string& address, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1)
    throw std::invalid_argument("not an IPv4 address: " + address);
  return a;
}

// SIGTERM and SIGINT are blocked and looked for between polls, so a stop ends the loop
// with its counts written.
sigset_t block_stops() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a reset flow is counted as failed, not a death
  return set;
}

bool stop_pending(const sigset_t& set) {
  sigset_t pending;
  sigpending(&pending);
  for (int s : {SIGTERM, SIGINT})
    if (sigismember(&set, s) && sigismember(&pending, s)) return true;
  return false;
}

void report(const char* what, const FlowCounts& c) {
  std::fprintf(
      stderr, "%s: %llu flows started, %llu finished, %llu failed, %llu skipped, %llu bytes\n",
      what, static_cast<unsigned long long>(c.started), static_cast<unsigned long long>(c.finished),
      static_cast<unsigned long long>(c.failed), static_cast<unsigned long long>(c.skipped),
      static_cast<unsigned long long>(c.bytes));
}

}  // namespace

int run_flow_sender(const std::string& address, uint16_t port, FlowDraws draws) {
  const sigset_t stops = block_stops();
  const sockaddr_in to = endpoint(address, port);
  struct Flow {
    int fd;
    uint64_t left;
  };
  std::vector<Flow> flows;
  FlowCounts counts;
  static const std::vector<char> zeros(kChunk, 0);
  auto next_arrival = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(draws.next_gap_s()));
  auto next_report = Clock::now() + kReportEvery;
  while (!stop_pending(stops)) {
    const auto now = Clock::now();
    while (next_arrival <= now) {
      const uint64_t size = draws.next_size();
      next_arrival += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(draws.next_gap_s()));
      if (flows.size() >= kMaxOpenFlows) {
        ++counts.skipped;
        continue;
      }
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0 || (connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0 &&
                     errno != EINPROGRESS)) {
        if (fd >= 0) close(fd);
        ++counts.failed;
        continue;
      }
      ++counts.started;
      flows.push_back({fd, size});
    }
    if (now >= next_report) {
      report("flows", counts);
      next_report = now + kReportEvery;
    }
    std::vector<pollfd> fds;
    for (const auto& f : flows) fds.push_back({f.fd, POLLOUT, 0});
    const auto until = std::min(next_arrival, next_report);
    const int wait_ms = static_cast<int>(std::clamp<int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count() + 1, 1,
        100));  // 100 ms: a stop is seen within that
    if (poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) {
      std::perror("testbed _flows: poll");
      return 1;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      Flow& f = flows[i];
      if (fds[i].revents == 0) continue;
      bool ended = false, failed = (fds[i].revents & (POLLERR | POLLHUP)) != 0;
      while (!failed && f.left > 0) {
        const ssize_t n =
            send(f.fd, zeros.data(), std::min<uint64_t>(f.left, kChunk), MSG_NOSIGNAL);
        if (n < 0) {
          failed = errno != EAGAIN && errno != EWOULDBLOCK;
          break;
        }
        f.left -= static_cast<uint64_t>(n);
        counts.bytes += static_cast<uint64_t>(n);
      }
      ended = f.left == 0;
      if (ended || failed) {
        close(f.fd);  // a graceful close: what the socket still holds is sent, then FIN
        f.fd = -1;
        ++(failed ? counts.failed : counts.finished);
      }
    }
    std::erase_if(flows, [](const Flow& f) { return f.fd < 0; });
  }
  for (const auto& f : flows) close(f.fd);
  report("flows at the stop", counts);
  return 0;
}

int run_flow_sink(const std::string& address, uint16_t port) {
  const sigset_t stops = block_stops();
  const sockaddr_in at = endpoint(address, port);
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  // The backlog: flows arriving in a burst wait for accept rather than being refused.
  if (listener < 0 || bind(listener, reinterpret_cast<const sockaddr*>(&at), sizeof at) != 0 ||
      listen(listener, 1024) != 0) {
    std::perror(("testbed _flows sink: listen on " + address).c_str());
    return 1;
  }
  std::vector<pollfd> fds = {{listener, POLLIN, 0}};
  std::vector<char> buffer(kChunk);
  FlowCounts counts;
  auto next_report = Clock::now() + kReportEvery;
  while (!stop_pending(stops)) {
    if (poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) {
      std::perror("testbed _flows sink: poll");
      return 1;
    }
    if (fds[0].revents & POLLIN) {
      for (int fd; fds.size() <= kMaxOpenFlows &&
                   (fd = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
        fds.push_back({fd, POLLIN, 0});
        ++counts.started;
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      for (;;) {
        const ssize_t n = read(fds[i].fd, buffer.data(), buffer.size());
        if (n > 0) {
          counts.bytes += static_cast<uint64_t>(n);
          continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        close(fds[i].fd);  // its end (0), or a reset
        fds[i].fd = -1;
        ++(n == 0 ? counts.finished : counts.failed);
        break;
      }
    }
    std::erase_if(fds, [](const pollfd& p) { return p.fd < 0; });
    for (auto& p : fds) p.revents = 0;
    if (Clock::now() >= next_report) {
      report("sink", counts);
      next_report = Clock::now() + kReportEvery;
    }
  }
  for (const auto& p : fds) close(p.fd);
  report("sink at the stop", counts);
  return 0;
}

}  // namespace testbed
