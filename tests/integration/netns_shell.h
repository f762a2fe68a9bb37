// Measuring between namespaces the tests made themselves (not through `testbed exec`):
// iperf3's rate from one namespace to a server started in another.
#pragma once

#include <string>
#include <vector>

namespace testbed::it {

// iperf3 for 5 s (the first 2 left out, see bringup_test.cpp) from `client_ns` to a one-off
// server started in `server_ns` at `server_address`: the receiver's Mbit/s, 0 on failure.
double iperf3_mbit(const std::string& client_ns, const std::string& server_ns,
                   const std::string& server_address);

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
