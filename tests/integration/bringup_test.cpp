// Real bring-ups, as root: reachability across the topology and shaped rates measured
// with iperf3. Every test removes its lab, whatever happens (LabGuard).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "host_snapshot.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

// TCP payload per full frame: MSS 1448 (1500 - 20 IP - 32 TCP with timestamps) in a
// 1514-byte Ethernet frame. TBF shapes frames, iperf3 counts payload.
constexpr double kGoodputPerFrameByte = 1448.0 / 1514.0;

nlohmann::json status_json(const std::string& lab) {
  const Result r = run_testbed({"status", lab, "--json"});
  EXPECT_EQ(r.status, 0) << r.output;
  return nlohmann::json::parse(r.output);
}

TEST(Bringup, Internet2PingsEveryOrderedPair) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-i2");
  const Result up = run_testbed({"up", profile_as_lab("internet2.yaml", "tbt-i2")});
  ASSERT_EQ(up.status, 0) << up.output;
  const auto nodes = status_json("tbt-i2")["nodes"];
  ASSERT_EQ(nodes.size(), 9u);
  int pairs = 0;
  for (const auto& src : nodes) {
    // Two pings to each destination, 0.2 s apart, and an answer to either: reachability is
    // what this checks. One first packet of 72 went unanswered once in CI's emulated-CPU
    // guest with the delay line (its cause not yet found: docs/development.md); RTT and loss
    // are measured by the Dynamics tests. A source's pings run at once, from one `exec`:
    // 72 process starts one after another took 98 s of CI's emulated-CPU guest.
    std::string script;
    for (const auto& dst : nodes) {
      if (src == dst) continue;
      const std::string addr = dst["address"];
      script +=
          "(ping -c 2 -i 0.2 -W 5 -q " + addr + " >/dev/null 2>&1; echo \"" + addr + " $?\") & ";
    }
    script += "wait";
    const Result r =
        run_testbed({"exec", "--lab", "tbt-i2", src["name"], "--", "sh", "-c", script});
    EXPECT_EQ(r.status, 0) << r.output;
    for (const auto& dst : nodes) {
      if (src == dst) continue;
      const std::string addr = dst["address"];
      EXPECT_NE(r.output.find(addr + " 0\n"), std::string::npos)
          << src["name"] << " -> " << dst["name"] << " (" << addr << "): " << r.output;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, 72);
  // The links carry IPv4 alone: no link-local IPv6 address (whose probes and reports would
  // cross the shaped links), and the loopback keeps ::1.
  const Result v6 = run_testbed({"exec", "--lab", "tbt-i2", "chicago", "--", "ip", "-6", "addr"});
  EXPECT_EQ(v6.status, 0) << v6.output;
  EXPECT_NE(v6.output.find("::1/128"), std::string::npos) << v6.output;
  EXPECT_EQ(v6.output.find("fe80:"), std::string::npos) << v6.output;
}

double iperf_mbit(const std::string& lab, const std::string& client, const std::string& server_addr,
                  bool reverse) {
  // Two seconds are left out: when the bottleneck is a router's queue rather than the
  // sender's own, slow start overshoots it and the queue drops whole GSO super-packets (57
  // drops cost 1400 segments in one measured run), whose recovery can last into the second
  // second. With 1 s left out, 8 runs gave 0.964-1.021 of the shaped rate; with 2 s,
  // 0.998-1.008.
  std::vector<std::string> args = {"exec",      "--lab", lab, client, "--", "iperf3", "-c",
                                   server_addr, "-t",    "5", "-O",   "2",  "-J"};
  if (reverse) args.push_back("-R");
  const Result r = run_testbed(args);
  EXPECT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output, nullptr, false);
  if (j.is_discarded() || !j.contains("end")) return 0;
  return j["end"]["sum_received"]["bits_per_second"].get<double>() / 1e6;
}

// The shaped rate read from below: a flow that reads more than 5% under `configured` is
// read again, up to three flows, and the best counts. A drop or a moment without CPU only
// ever lowers a flow's rate (CI once read 36.0 against 38.3 Mbit/s expected, on a machine
// running a second suite beside it); a link shaped wrongly reads wrong in every flow, and
// a reading above the rate is never retried.
double best_iperf_mbit(const std::string& lab, const std::string& client,
                       const std::string& server_addr, bool reverse, double configured) {
  double best = 0;
  for (int flow = 0; flow < 3 && best < configured * kGoodputPerFrameByte * 0.95; ++flow)
    best = std::max(best, iperf_mbit(lab, client, server_addr, reverse));
  return best;
}

TEST(Bringup, ThreeHopPathGetsTheBottleneckRateEachWay) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-line4");
  const Result up = run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/line4.yaml"});
  ASSERT_EQ(up.status, 0) << up.output;
  // The server is started through `testbed exec`, so the lab records it and `down` ends it.
  const pid_t server = spawn_testbed({"exec", "--lab", "tbt-line4", "n4", "--", "iperf3", "-s"});
  guard.own(server);
  wait_for_listener("tbt-line4", "n4");

  // n1 -> n4 crosses 100, 40 and 80 Mbit/s: the bottleneck is the middle hop's a2b.
  const double forward = best_iperf_mbit("tbt-line4", "n1", "198.18.0.4", false, 40);
  EXPECT_NEAR(forward, 40 * kGoodputPerFrameByte, 40 * kGoodputPerFrameByte * 0.05);
  // n4 -> n1 crosses 80, 90 and 100 Mbit/s: the per-direction override makes it 80.
  const double reverse = best_iperf_mbit("tbt-line4", "n1", "198.18.0.4", true, 80);
  EXPECT_NEAR(reverse, 80 * kGoodputPerFrameByte, 80 * kGoodputPerFrameByte * 0.05);
  std::cout << "[ measured ] n1->n4 " << forward << " Mbit/s of 40 configured (" << forward / 40
            << "), n4->n1 " << reverse << " Mbit/s of 80 (" << reverse / 80 << ")\n";

  const Result down = run_testbed({"down", "tbt-line4"});
  ASSERT_EQ(down.status, 0) << down.output;
  // The iperf3 server `exec` started, the exporter and the lab's Prometheus.
  EXPECT_NE(down.output.find("3 processes removed"), std::string::npos) << down.output;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_NE(waitpid(server, nullptr, WNOHANG), 0) << "iperf3 server still running after down";
}

TEST(Bringup, ExecPassesTheExitStatusThrough) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-pair");
  ASSERT_EQ(run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/pair.yaml"}).status, 0);
  EXPECT_EQ(run_testbed({"exec", "left", "--lab", "tbt-pair", "--", "sh", "-c", "exit 7"}).status,
            7);
  EXPECT_EQ(run_testbed({"exec", "--lab", "tbt-pair", "left", "--", "true"}).status, 0);
  EXPECT_EQ(run_testbed({"exec", "--lab", "tbt-pair", "left", "--", "/nonexistent"}).status, 127);
  EXPECT_EQ(run_testbed({"exec", "--lab", "tbt-pair", "nobody", "--", "true"}).status, 2);
  // Inside the node, only its own interfaces are visible.
  const Result links =
      run_testbed({"exec", "--lab", "tbt-pair", "left", "--", "ls", "/sys/class/net"});
  EXPECT_EQ(links.output, "lo\ntb0-right\n");
}

TEST(Bringup, UpRefusesALabThatIsAlreadyUp) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-pair");
  const std::string profile = TESTBED_PROFILES_DIR + "/tiny/pair.yaml";
  ASSERT_EQ(run_testbed({"up", profile}).status, 0);
  const HostSnapshot before = take_host_snapshot();
  const Result again = run_testbed({"up", profile});
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.output.find("already up"), std::string::npos) << again.output;
  EXPECT_EQ(take_host_snapshot(), before);
  EXPECT_TRUE(lab_state_exists("tbt-pair"));
}

TEST(Bringup, InvalidProfileChangesNothing) {
  REQUIRE_ROOT();
  const HostSnapshot before = take_host_snapshot();
  const Result r = run_testbed({"up", TESTBED_PROFILES_DIR + "/../tests/data/bad/bad_values.yaml"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("bad_values.yaml:7:16: bandwidth: must not be negative"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(take_host_snapshot(), before);
  EXPECT_FALSE(lab_state_exists("bad"));
}

}  // namespace
}  // namespace testbed::it
