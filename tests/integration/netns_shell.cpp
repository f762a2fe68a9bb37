#include "netns_shell.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "netns/libnl_kernel.h"
#include "netns/netns_exec.h"

namespace testbed::it {

double iperf3_mbit(const std::string& client_ns, const std::string& server_ns,
                   const std::string& server_address) {
  const std::string pid_file = "/tmp/tb-it-iperf3-" + server_ns + ".pid";
  // The one-off server exits after its test; if the client never reaches it, end it by
  // the pid it wrote.
  struct ServerGuard {
    std::string pid_file;
    ~ServerGuard() {
      std::ifstream in(pid_file);
      pid_t pid = 0;
      if (in >> pid && pid > 0) kill(pid, SIGTERM);
      std::remove(pid_file.c_str());
    }
  } guard{pid_file};
  if (run_in_netns(server_ns, {"iperf3", "-s", "-D", "-1", "-I", pid_file}).status != 0) return 0;
  // The daemon needs a moment to listen: retry for up to 5 s rather than sleep a guess.
  for (int i = 0; i < 100; ++i) {
    const CommandResult r =
        run_in_netns(client_ns, {"iperf3", "-c", server_address, "-t", "5", "-O", "2", "-J"});
    const auto j = nlohmann::json::parse(r.output, nullptr, false);
    if (!j.is_discarded() && j.contains("end") && j["end"].contains("sum_received"))
      return j["end"]["sum_received"]["bits_per_second"].get<double>() / 1e6;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return 0;
}

double ping_field(const std::string& output, const std::regex& pattern) {
  std::smatch m;
  if (!std::regex_search(output, m, pattern)) return -1;
  return std::stod(m[1]);
}

void expect_rtt(const std::string& output, double expected_ms) {
  const double min = ping_field(output, std::regex(R"(= ([\d.]+)/)"));
  double avg = ping_field(output, std::regex(R"(= [\d.]+/([\d.]+)/)"));
  // The mean without the slowest reply: one stall of this virtual host (10-30 ms, the
  // host's and not the path's) raised a 20-ping mean to 63.8 ms on a 60 ms path in CI
  // (max 92.1 ms, the others 62.3 ms on average). A path that is slow throughout still
  // shows in every other reply.
  const double max = ping_field(output, std::regex(R"(= [\d.]+/[\d.]+/([\d.]+)/)"));
  const double received = ping_field(output, std::regex(R"(, (\d+) received)"));
  if (received > 2 && max >= avg) avg = (avg * received - max) / (received - 1);
  const double slack = std::getenv("TESTBED_EMULATED_CPU") ? 8.0 : 3.0;
  EXPECT_NEAR(min, expected_ms, 3.0) << output;
  EXPECT_GE(avg, expected_ms - 3.0) << output;
  EXPECT_LE(avg, expected_ms + slack) << output;
}

NamespacesGuard::~NamespacesGuard() {
  LibnlKernel kernel;
  for (const auto& n : names_) {
    if (kernel.namespace_exists(n)) kernel.delete_namespace(n);
  }
}

}  // namespace testbed::it
