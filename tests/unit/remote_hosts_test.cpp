// The controller's view of the hosts that run some of a run's agents (remote_hosts.h):
// beats claim nodes, a "died" report ends the run naming its node and host, a silent host
// is named after kHostSilence, and whatever is malformed or not a host's to say is dropped.
// Also the one reading of port numbers (port_number.h).
#include "controller/training/remote_hosts.h"

#include <gtest/gtest.h>

#include "controller/topology/port_number.h"

namespace testbed {
namespace {

using Clock = RemoteHosts::Clock;

RemoteHosts three_nodes_two_remote() {
  // The placement: atlanta on host2, seattle on host3 (and host3 in the tests that give it
  // both, below).
  return RemoteHosts({"chicago", "atlanta", "seattle"}, {false, true, true},
                     {"host1", "host2", "host3"});
}

TEST(RemoteHosts, BeatsClaimNodesAndADeathIsNamed) {
  RemoteHosts hosts = three_nodes_two_remote();
  const auto t0 = Clock::now();
  EXPECT_TRUE(hosts.any());
  EXPECT_EQ(hosts.unclaimed(), (std::vector<std::string>{"atlanta", "seattle"}));
  EXPECT_TRUE(hosts.hear("host/host2", R"({"event":"beat","nodes":[1]})", t0));
  EXPECT_EQ(hosts.unclaimed(), (std::vector<std::string>{"seattle"}));
  EXPECT_EQ(hosts.routing_ids(), (std::vector<std::string>{"host/host2"}));  // told of the end
  try {
    hosts.hear("host/host2", R"({"event":"died","node":1,"how":"killed by signal 9"})", t0);
    FAIL() << "a died report must end the run";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the agent of node atlanta on host host2 died (killed by signal 9)");
  }
}

TEST(RemoteHosts, ASilentHostIsNamedWithItsNodes) {
  RemoteHosts hosts({"chicago", "atlanta", "seattle"}, {false, true, true},
                    {"host1", "host3", "host3"});
  const auto t0 = Clock::now();
  ASSERT_TRUE(hosts.hear("host/host3", R"({"event":"beat","nodes":[1,2]})", t0));
  EXPECT_NO_THROW(hosts.check(t0 + kHostSilence - std::chrono::seconds(1)));
  // A beat renews it.
  ASSERT_TRUE(hosts.hear("host/host3", R"({"event":"beat","nodes":[1,2]})", t0 + kHostSilence));
  EXPECT_NO_THROW(hosts.check(t0 + kHostSilence + std::chrono::seconds(10)));
  try {
    hosts.check(t0 + 2 * kHostSilence);
    FAIL() << "a host silent for kHostSilence must be named";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("host host3 (nodes atlanta, seattle) has been silent"),
              std::string::npos)
        << e.what();
  }
}

TEST(RemoteHosts, WhatIsMalformedOrNotTheHostsToSayIsDropped) {
  RemoteHosts hosts = three_nodes_two_remote();
  const auto t0 = Clock::now();
  ASSERT_TRUE(hosts.hear("host/host2", R"({"event":"beat","nodes":[1]})", t0));
  for (const auto& [id, payload] : std::vector<std::pair<std::string, std::string>>{
           {"1", R"({"event":"beat","nodes":[1]})"},            // an agent's id, not a host's
           {"host/", R"({"event":"beat","nodes":[2]})"},        // no host name
           {"host/Host_3", R"({"event":"beat","nodes":[2]})"},  // not a DNS label
           {"host/host3", R"({"event":"beat","nodes":[0]})"},   // node 0 runs here
           {"host/host3", R"({"event":"beat","nodes":[7]})"},   // no such node
           {"host/host3", R"({"event":"beat","nodes":[1]})"},   // host2's node
           {"host/host3", R"({"event":"beat","nodes":"2"})"},   // not a list
           {"host/host3", R"({"event":"beat"})"},               // no nodes
           {"host/host3", R"({"event":"bea)"},                  // cut short
           {"host/host3", R"({"event":"hello"})"},              // unknown event
           {"host/host3", R"({"event":"died","node":1})"},      // host2's node
           {"host/host2", R"({"event":"died","node":-1})"},     // not an index
       }) {
    EXPECT_FALSE(hosts.hear(id, payload, t0)) << id << " " << payload;
  }
  // None of it changed who runs what.
  EXPECT_EQ(hosts.unclaimed(), (std::vector<std::string>{"seattle"}));
  EXPECT_NO_THROW(hosts.check(t0));
}

// Measured before: host3's first beat claimed host2's node while host2 had not beaten yet,
// and host3's "died" for it then ended the run naming host3.
TEST(RemoteHosts, AHostThatBeatsFirstCannotClaimAnotherHostsNode) {
  RemoteHosts hosts = three_nodes_two_remote();
  const auto t0 = Clock::now();
  EXPECT_FALSE(hosts.hear("host/host3", R"({"event":"beat","nodes":[1,2]})", t0));
  EXPECT_FALSE(hosts.hear("host/host3", R"({"event":"beat","nodes":[1]})", t0));
  EXPECT_FALSE(hosts.hear("host/host3", R"({"event":"died","node":1})", t0));
  ASSERT_TRUE(hosts.hear("host/host3", R"({"event":"beat","nodes":[2]})", t0));
  EXPECT_EQ(hosts.unclaimed(), (std::vector<std::string>{"atlanta"}));
  ASSERT_TRUE(hosts.hear("host/host2", R"({"event":"beat","nodes":[1]})", t0));
  EXPECT_TRUE(hosts.unclaimed().empty());
}

TEST(RemoteHosts, OneBoxHasNoRemoteHosts) {
  EXPECT_FALSE(RemoteHosts({"a", "b"}, {false, false}, {"h", "h"}).any());
}

TEST(PortNumber, DigitsFrom1To65535Only) {
  EXPECT_EQ(parse_port("9464"), 9464);
  EXPECT_EQ(parse_port("1"), 1);
  EXPECT_EQ(parse_port("65535"), 65535);
  for (const char* bad : {"", "0", "65536", "9464x", "+80", " 80", "-1", "123456", "8o"})
    EXPECT_FALSE(parse_port(bad)) << bad;
  const auto at = parse_host_port("198.18.254.1:7199");
  ASSERT_TRUE(at);
  EXPECT_EQ(at->address, "198.18.254.1");
  EXPECT_EQ(at->port, 7199);
  for (const char* bad : {"7199", ":7199", "198.18.254.1:", "198.18.254.1:x"})
    EXPECT_FALSE(parse_host_port(bad)) << bad;
}

}  // namespace
}  // namespace testbed
