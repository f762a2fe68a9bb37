// What the host's network looks like from outside the testbed, to prove a test left it
// as it found it. Read with iproute2 (tests may; the product itself never runs ip or tc).
#pragma once

#include <string>

namespace testbed::it {

struct HostSnapshot {
  std::string namespaces;  // `ip netns list`
  std::string links;       // host interface names
  std::string routes;      // host IPv4 routes
  std::string rules;       // iptables rules
  std::string identities;  // nodes' UTS namespaces and hosts files (node_identity.h)
  std::string cgroups;     // nodes' control groups (node_cgroup.h)
  bool operator==(const HostSnapshot&) const = default;
};

HostSnapshot take_host_snapshot();
std::string shell_output(const std::string& command);

}  // namespace testbed::it
