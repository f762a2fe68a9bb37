// Links between hosts (docs/multihost.md): a VXLAN whose tunnel runs in one "host"
// namespace and whose device sits in a node's, as on two machines joined by a network.
// Here the hosts are namespaces joined by a veth, the underlay.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "controller/lab/planner.h"
#include "netns/libnl_kernel.h"
#include "netns/named_netns.h"
#include "netns_shell.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

int in_namespace(const std::string& ns, const std::string& command) {
  return std::system(("ip netns exec " + ns + " " + command + " >/dev/null 2>&1").c_str());
}

// Underlay and link addresses from the testbed's range (198.18.0.0/15), far from where a
// lab's plan starts assigning them.
const Ipv4Address kHost1{0xC612FF01};  // 198.18.255.1
const Ipv4Address kHost2{0xC612FF02};  // 198.18.255.2
// IANA's VXLAN port; a deployment picks its own so as not to meet the cluster's VXLANs.
constexpr uint16_t kVxlanPort = 4789;

TEST(Vxlan, NodesOnTwoHostsReachEachOtherThroughTheTunnelAndItsShapingHolds) {
  REQUIRE_ROOT();
  const std::vector<std::string> names = {"tb-tvx-h1", "tb-tvx-h2", "tb-tvx-n1", "tb-tvx-n2"};
  LibnlKernel kernel;
  for (const auto& n : names) ASSERT_FALSE(kernel.namespace_exists(n)) << n << " exists already";
  NamespacesGuard guard(names);
  for (const auto& n : names) kernel.create_namespace(n);

  // The underlay: the hosts' own network.
  kernel.create_veth("tb-tvx-h1", "tbu-h2", "tb-tvx-h2", "tbu-h1");
  kernel.add_address("tb-tvx-h1", "tbu-h2", Ipv4Prefix{kHost1, 30});
  kernel.add_address("tb-tvx-h2", "tbu-h1", Ipv4Prefix{kHost2, 30});
  kernel.set_link_up("tb-tvx-h1", "tbu-h2", true);
  kernel.set_link_up("tb-tvx-h2", "tbu-h1", true);

  // One link between n1 (on host 1) and n2 (on host 2): a tunnel end in each node.
  kernel.create_vxlan("tb-tvx-h1", "tb-tvx-n1", "tb0-n2",
                      VxlanSpec{1, kHost1, kHost2, kVxlanPort, "tbu-h2"});
  kernel.create_vxlan("tb-tvx-h2", "tb-tvx-n2", "tb0-n1",
                      VxlanSpec{1, kHost2, kHost1, kVxlanPort, "tbu-h1"});
  EXPECT_TRUE(kernel.link_exists("tb-tvx-n1", "tb0-n2"));
  EXPECT_FALSE(kernel.link_exists("tb-tvx-h1", "tb0-n2")) << "the device is born in the node";
  kernel.add_address("tb-tvx-n1", "tb0-n2", Ipv4Prefix{Ipv4Address{0xC613FF01}, 30});
  kernel.add_address("tb-tvx-n2", "tb0-n1", Ipv4Prefix{Ipv4Address{0xC613FF02}, 30});
  kernel.set_link_up("tb-tvx-n1", "tb0-n2", true);
  kernel.set_link_up("tb-tvx-n2", "tb0-n1", true);

  // The nodes have no other way to each other: a reply proves the tunnel carries the link.
  EXPECT_EQ(in_namespace("tb-tvx-n1", "ping -c 3 -i 0.2 -W 2 198.19.255.2"), 0);
  EXPECT_NE(in_namespace("tb-tvx-h1", "ping -c 1 -W 1 198.19.255.2"), 0)
      << "the link's addresses are not reachable from the host's own network";

  // The sender's shaping goes on the tunnel device as on a veth, sized as the planner
  // sizes a 40 Mbit/s link.
  DirectionParams forty;
  forty.rate = Rate{40'000'000};
  const RateShaping shaping = size_shaping(forty);
  kernel.set_shaping("tb-tvx-n1", "tb0-n2", shaping);
  const auto state = kernel.shaping("tb-tvx-n1", "tb0-n2");
  ASSERT_TRUE(state.has_value());
  EXPECT_EQ(state->config.rate_bytes_per_s, shaping.rate_bytes_per_s);

  // iperf3 through it gets the shaped rate, as through a veth (bringup_test.cpp: within
  // 5%). The tunnel costs the inner frames 50 bytes of MTU (VXLAN, UDP, IP and the inner
  // Ethernet header on a 1500-byte underlay), so TCP carries 1398 bytes of each 1464-byte
  // inner frame that the shaper counts. Measured here at 100 Mbit/s and 1 Gbit/s, three runs each:
  // 0.998-1.000 of a veth's goodput at the same rate.
  const double mbit = iperf3_mbit("tb-tvx-n1", "tb-tvx-n2", "198.19.255.2");
  constexpr double kTunnelGoodputPerFrameByte = 1398.0 / 1464.0;
  EXPECT_NEAR(mbit, 40 * kTunnelGoodputPerFrameByte, 40 * kTunnelGoodputPerFrameByte * 0.05);
  EXPECT_GT(kernel.shaping("tb-tvx-n1", "tb0-n2")->sent_packets, 0u);
}

}  // namespace
}  // namespace testbed::it
