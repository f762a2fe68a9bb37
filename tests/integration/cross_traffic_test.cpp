// Cross traffic on real links (docs/topologies.md#cross-traffic): each kind's load measured
// by the testbed's own counters against its target on an idle link, bulk flows beside a
// flow of the test's own on a shared bottleneck, an entry's stop, nothing left once the lab
// is down, and a bad entry refused by name with exit 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "netns_shell.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

nlohmann::json status_json(const std::string& lab) {
  const Result r = run_testbed({"status", lab, "--json"});
  EXPECT_EQ(r.status, 0) << r.output;
  return nlohmann::json::parse(r.output);
}

// Each direction's cross traffic delivered so far, by "from>to", and when it was read.
std::map<std::string, double> background(const std::string& lab,
                                         std::chrono::steady_clock::time_point& at) {
  const auto s = status_json(lab);
  at = std::chrono::steady_clock::now();
  std::map<std::string, double> out;
  for (const auto& l : s["links"]) {
    for (const char* dir : {"a2b", "b2a"}) {
      const auto& d = l[dir];
      if (d.contains("kernel") && !d["kernel"].is_null() &&
          d["kernel"].contains("background_bytes"))
        out[d["from"].get<std::string>() + ">" + d["to"].get<std::string>()] =
            d["kernel"]["background_bytes"].get<double>();
    }
  }
  return out;
}

// Mbit/s of cross traffic per direction over `seconds`.
std::map<std::string, double> background_mbit(const std::string& lab, double seconds) {
  std::chrono::steady_clock::time_point t0, t1;
  const auto before = background(lab, t0);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const auto after = background(lab, t1);
  const double s = std::chrono::duration<double>(t1 - t0).count();
  std::map<std::string, double> out;
  for (const auto& [d, bytes] : after) out[d] = (bytes - before.at(d)) * 8 / s / 1e6;
  return out;
}

// Processes whose command line holds `text` (a regular expression, its first character in
// brackets so that the shell running pgrep, whose own command line holds the pattern as
// written, does not match it).
int processes_with(const std::string& text) {
  FILE* p =
      popen(("pgrep -f -c -- '[" + text.substr(0, 1) + "]" + text.substr(1) + "'").c_str(), "r");
  int n = 0;
  if (p) {
    if (fscanf(p, "%d", &n) != 1) n = 0;
    pclose(p);
  }
  return n;
}

std::string profile(const std::string& lab, const std::string& links, const std::string& traffic) {
  const std::string path = temp_file(lab + ".yaml");
  std::ofstream(path) << "lab: " << lab << "\nnodes: {a: {}, b: {}, c: {}}\nlinks:\n"
                      << links << "cross_traffic:\n"
                      << traffic;
  return path;
}

TEST(CrossTraffic, UdpAndPoissonLoadsAreWithinTenPercentOfTheirTargetsOnIdleLinks) {
  REQUIRE_ROOT();
  const std::string lab = "tbt-xt-load";
  LabGuard guard(lab);
  // Shape 2.5 (a finite variance) and 32 KiB flows: about 76 flows a second at 20 Mbit/s,
  // so that 20 s hold some 1500 of them and their sum is within 3% of its mean (sd), where
  // a shape of 1.5 would need minutes.
  const Result up =
      run_testbed({"up", profile(lab,
                                 "  - {endpoints: [a, b], bandwidth: 100mbit, delay: 5ms}\n"
                                 "  - {endpoints: [b, c], bandwidth: 100mbit, delay: 5ms}\n",
                                 "  - {from: a, to: b, kind: udp, rate: 20mbit}\n"
                                 "  - {from: c, to: b, kind: poisson, load: 20%, mean_size: 32KiB, "
                                 "shape: 2.5, seed: 3}\n")});
  ASSERT_EQ(up.status, 0) << up.output;
  std::this_thread::sleep_for(std::chrono::seconds(2));  // past the generators' start
  const auto mbit = background_mbit(lab, 20);
  for (const auto& [d, m] : mbit) std::cout << "  " << d << ": " << m << " Mbit/s\n";
  // The counters count IP bytes: UDP's are 28/1448 above the payload rate, TCP's 52/1448.
  EXPECT_NEAR(mbit.at("a>b"), 20, 2) << "constant-rate UDP";
  EXPECT_NEAR(mbit.at("c>b"), 20, 2) << "poisson flows";
  // The other directions carry no UDP back and only the poisson flows' ACKs.
  EXPECT_LT(mbit.at("b>a"), 0.05);
  EXPECT_LT(mbit.at("b>c"), 2);
  const auto s = status_json(lab);
  ASSERT_EQ(s["cross_traffic"].size(), 2u);
  EXPECT_EQ(s["cross_traffic"][1]["rate_bits_per_s"], 20000000u);  // 20% of 100 Mbit/s
  const Result down = run_testbed({"down", lab});
  ASSERT_EQ(down.status, 0) << down.output;
  EXPECT_EQ(processes_with("iperf3 --server --port 5301"), 0);
  EXPECT_EQ(processes_with("_flows sink"), 0);
  EXPECT_EQ(processes_with("_traffic"), 0);
}

TEST(CrossTraffic, BulkFlowsTakeTheirShareBesideAnotherFlowAndStopWhenTold) {
  REQUIRE_ROOT();
  const std::string lab = "tbt-xt-bulk";
  LabGuard guard(lab);
  const Result up =
      run_testbed({"up", profile(lab,
                                 "  - {endpoints: [a, b], bandwidth: 40mbit, delay: 5ms}\n"
                                 "  - {endpoints: [b, c], bandwidth: 100mbit, delay: 5ms}\n",
                                 "  - {from: a, to: b, kind: bulk, flows: 3, stop: 25s}\n")});
  ASSERT_EQ(up.status, 0) << up.output;
  const auto s = status_json(lab);
  std::string a_ns, b_ns, b_addr;
  for (const auto& n : s["nodes"]) {
    if (n["name"] == "a") a_ns = n["namespace"];
    if (n["name"] == "b") b_ns = n["namespace"];
    if (n["name"] == "b") b_addr = n["address"];
  }
  std::chrono::steady_clock::time_point t0, t1;
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto before = background(lab, t0);
  // A flow of the test's own (port 5201, not counted) beside three bulk flows on a 40 Mbit/s
  // link: a fair split gives it a quarter. TCP's split between flows of the same RTT is
  // near, not exact: between a tenth and a half is what this judges.
  const double own = iperf3_mbit(a_ns, b_ns, b_addr);
  const auto after = background(lab, t1);
  const double bg = (after.at("a>b") - before.at("a>b")) * 8 /
                    std::chrono::duration<double>(t1 - t0).count() / 1e6;
  std::cout << "  own flow " << own << " Mbit/s, bulk flows " << bg << " Mbit/s\n";
  EXPECT_GT(own, 4);
  EXPECT_LT(own, 20);
  // Together they fill the link (the shaper counts frames, iperf3 payload: 4% between).
  EXPECT_GT(own + bg, 40 * 0.85);
  EXPECT_LT(own + bg, 40 * 1.05);
  // A run beside them says what they took of its links: the bulk flows' bytes and the
  // job's apart on a>b, and the job's fair share beside three flows.
  const auto summary = train_json(
      lab, {"--strategy", "bsp", "--model", "mf", "--iterations", "3", "--compute-ms", "20"});
  ASSERT_TRUE(summary.contains("cross_traffic")) << summary.dump();
  const auto& ab = summary["cross_traffic"]["directions"]["a>b"];
  EXPECT_GT(ab["background_bytes"].get<double>(), 1e6);
  EXPECT_GT(ab["job_bytes"].get<double>(), 0);
  // A quarter while the flows are on; more if the run outlasts their stop on a slow host.
  EXPECT_GE(ab["job_fair_share"].get<double>(), 0.249);
  EXPECT_LE(ab["job_fair_share"].get<double>(), 0.5);
  EXPECT_GT(ab["job_share"].get<double>(), 0);
  EXPECT_LT(ab["job_share"].get<double>(), 0.5);
  // The other link carries none of it.
  EXPECT_FALSE(summary["cross_traffic"]["directions"].contains("b>c"));
  // Stopped at 25 s on the lab's clock: nothing crosses after.
  std::this_thread::sleep_for(std::chrono::seconds(25) - (std::chrono::steady_clock::now() - t0) +
                              std::chrono::seconds(3));
  const auto stopped = background_mbit(lab, 3);
  EXPECT_LT(stopped.at("a>b"), 0.01);
  EXPECT_EQ(processes_with("iperf3 --client"), 0);
}

TEST(CrossTraffic, ABadEntryIsRefusedByNameAndNothingIsMade) {
  REQUIRE_ROOT();
  const std::string lab = "tbt-xt-bad";
  LabGuard guard(lab);
  const std::string path = profile(lab, "  - {endpoints: [a, b]}\n  - {endpoints: [b, c]}\n",
                                   "  - {from: a, to: d, kind: bulk}\n");
  for (const char* verb : {"validate", "up"}) {
    const Result r = run_testbed({verb, path});
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find(":7:19: cross_traffic: to: no node named 'd'"), std::string::npos)
        << r.output;
  }
  EXPECT_FALSE(lab_state_exists(lab));
}

}  // namespace
}  // namespace testbed::it
