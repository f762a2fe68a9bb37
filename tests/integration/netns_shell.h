// Measuring between namespaces the tests made themselves (not through `testbed exec`):
// iperf3's rate from one namespace to a server started in another, and ping's figures.
#pragma once

#include <regex>
#include <string>
#include <vector>

namespace testbed::it {

// iperf3 for 5 s (the first 2 left out, see bringup_test.cpp) from `client_ns` to a one-off
// server started in `server_ns` at `server_address`: the receiver's Mbit/s, 0 on failure.
double iperf3_mbit(const std::string& client_ns, const std::string& server_ns,
                   const std::string& server_address);

// The first group `pattern` captures in ping's `output` as a number, -1 when absent.
double ping_field(const std::string& output, const std::regex& pattern);

// A ping's RTTs against the configured `expected_ms`: the least is the delay as the kernel
// applied it (within 3 ms), and the mean adds only the host's scheduling: 3 ms more at most
// on a machine's own kernel, 8 ms under a CPU emulated in software (scripts/kernel-test.sh
// sets TESTBED_EMULATED_CPU: TCG's per-packet cost, 4.8 ms measured on a 60 ms RTT).
// Judged with gtest's EXPECT, so a miss fails the calling test.
void expect_rtt(const std::string& output, double expected_ms);

// Namespaces a test makes itself (not through `up`), deleted whatever its outcome. They are
// the test's own, named tb-t..., and it refuses to start when one exists already.
class NamespacesGuard {
 public:
  explicit NamespacesGuard(std::vector<std::string> names) : names_(std::move(names)) {}
  ~NamespacesGuard();
  NamespacesGuard(const NamespacesGuard&) = delete;
  NamespacesGuard& operator=(const NamespacesGuard&) = delete;

 private:
  std::vector<std::string> names_;
};

}  // namespace testbed::it
