// What keeps a large lab quick and cheap (issue 37), on real namespaces: a node's routes
// installed in batches and removed by ownership, one delay-line process serving many nodes,
// and an exporter that samples the links only while someone watches.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "controller/lab/delay_line_groups.h"
#include "controller/observe/prometheus_server.h"
#include "host_snapshot.h"
#include "netns/cpu_allowance.h"
#include "netns/libnl_kernel.h"
#include "netns/netns_exec.h"
#include "netns/nft_delay_hooks.h"
#include "netns_shell.h"
#include "testbed_cli.h"
#include "tests/support/source_paths.h"

namespace testbed::it {
namespace {

// 300 /32 routes through b: more than two of add_routes' batches (128 requests each).
std::vector<RouteSpec> routes_via_b(size_t count) {
  std::vector<RouteSpec> out;
  for (size_t i = 0; i < count; ++i) {
    out.push_back(
        {Ipv4Prefix{Ipv4Address{0xC612C800 + static_cast<uint32_t>(i)}, 32},  // 198.18.200.x
         Ipv4Address{0xC613FF02}, "tb0-b", Ipv4Address{0xC613FF01}});
  }
  return out;
}

size_t lines_of(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(Scale, RoutesGoInBatchesAllOrNothingAndLeaveByOwnership) {
  REQUIRE_ROOT();
  const std::vector<std::string> names = {"tb-tsc-a", "tb-tsc-b"};
  LibnlKernel kernel;
  for (const auto& n : names) ASSERT_FALSE(kernel.namespace_exists(n)) << n << " exists already";
  NamespacesGuard guard(names);
  for (const auto& n : names) kernel.create_namespace(n);
  kernel.create_veth("tb-tsc-a", "tb0-b", "tb-tsc-b", "tb0-a");
  kernel.add_address("tb-tsc-a", "tb0-b", Ipv4Prefix{Ipv4Address{0xC613FF01}, 30});
  kernel.add_address("tb-tsc-b", "tb0-a", Ipv4Prefix{Ipv4Address{0xC613FF02}, 30});
  kernel.set_link_up("tb-tsc-a", "tb0-b", true);
  kernel.set_link_up("tb-tsc-b", "tb0-a", true);

  // A route someone else made, which the testbed must leave alone.
  ASSERT_EQ(run_in_netns("tb-tsc-a", {"ip", "route", "add", "198.18.250.1/32", "via",
                                      "198.19.255.2", "proto", "static"})
                .status,
            0);
  const auto routes = routes_via_b(300);
  kernel.add_routes("tb-tsc-a", routes);
  auto installed = kernel.routes("tb-tsc-a");
  std::sort(installed.begin(), installed.end());
  EXPECT_EQ(installed, routes) << "every route, and only the testbed's, read back";
  EXPECT_EQ(lines_of(run_in_netns("tb-tsc-a", {"ip", "route", "show", "proto", "116"}).output),
            300u);
  // A packet follows one of them: 198.18.200.7 is b's once b has it.
  kernel.add_address("tb-tsc-b", "lo", Ipv4Prefix{Ipv4Address{0xC612C807}, 32});
  kernel.set_link_up("tb-tsc-b", "lo", true);
  kernel.set_link_up("tb-tsc-a", "lo", true);
  EXPECT_EQ(run_in_netns("tb-tsc-a", {"ping", "-c", "1", "-W", "5", "198.18.200.7"}).status, 0);

  kernel.delete_routes("tb-tsc-a");
  EXPECT_TRUE(kernel.routes("tb-tsc-a").empty());
  EXPECT_NE(run_in_netns("tb-tsc-a", {"ip", "route"}).output.find("198.18.250.1"),
            std::string::npos)
      << "the route the testbed did not make stays";

  // One refused route in the middle of the second batch: none of the call's routes stay,
  // and the error names the refused one.
  auto bad = routes_via_b(300);
  bad[200].via = Ipv4Address{0x0A090909};  // 10.9.9.9: not on any of a's subnets
  try {
    kernel.add_routes("tb-tsc-a", bad);
    FAIL() << "a route through an unreachable gateway was accepted";
  } catch (const KernelError& e) {
    EXPECT_NE(std::string(e.what()).find(bad[200].dst.str()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(kernel.routes("tb-tsc-a").empty()) << "all or nothing";
}

// The delay hooks go in as one nf_tables transaction from the controller (no process per
// namespace), written as iptables-nft writes them: iptables reads them back, a second
// writing replaces a chain's rules without a second jump, and iptables-restore removes them.
TEST(Scale, DelayHooksAreOneTransactionThatIptablesReadsAndRemoves) {
  REQUIRE_ROOT();
  if (!iptables_is_nft())
    GTEST_SKIP() << "iptables is the legacy one: hooks go by iptables-restore";
  const std::vector<std::string> names = {"tb-tsh-a", "tb-tsh-b"};
  LibnlKernel kernel;
  for (const auto& n : names) ASSERT_FALSE(kernel.namespace_exists(n)) << n << " exists already";
  NamespacesGuard guard(names);
  for (const auto& n : names) kernel.create_namespace(n);
  kernel.create_veth("tb-tsh-a", "tb0-b", "tb-tsh-b", "tb0-a");
  const Kernel::IngressHooks hooks = {{"tb0-a", IngressDelay{7, 0.01}}};
  kernel.set_ingress_delays("tb-tsh-b", hooks);
  const std::string rules = run_in_netns("tb-tsh-b", {"iptables", "-t", "mangle", "-S"}).output;
  EXPECT_NE(rules.find("-A PREROUTING -i tb0-a -j TB-tb0-a"), std::string::npos) << rules;
  EXPECT_NE(rules.find("-A TB-tb0-a -m statistic --mode random --probability 0.0099"),
            std::string::npos)
      << rules;
  EXPECT_NE(rules.find("-A TB-tb0-a -j NFQUEUE --queue-num 7"), std::string::npos) << rules;
  EXPECT_NE(
      run_in_netns("tb-tsh-b", {"tc", "qdisc", "show", "dev", "tb0-a"}).output.find("ingress"),
      std::string::npos)
      << "the receive-timestamp reset's qdisc";
  {
    LibnlKernel fresh;  // knows nothing of what it did not install: reads iptables' view
    const auto read = fresh.ingress_delays("tb-tsh-b");
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read.at("tb0-a").queue, 7);
    EXPECT_NEAR(read.at("tb0-a").loss, 0.01, 1e-6);
  }
  kernel.set_ingress_delays("tb-tsh-b", {{"tb0-a", IngressDelay{8, 0}}});
  const std::string again = run_in_netns("tb-tsh-b", {"iptables", "-t", "mangle", "-S"}).output;
  EXPECT_EQ(again.find("statistic"), std::string::npos) << "the chain was flushed: " << again;
  EXPECT_NE(again.find("--queue-num 8"), std::string::npos) << again;
  const std::string jump = "-A PREROUTING -i tb0-a";
  EXPECT_EQ(again.find(jump), again.rfind(jump)) << "one jump only: " << again;
  kernel.remove_ingress_delays("tb-tsh-b", {"tb0-a"});
  const std::string after = run_in_netns("tb-tsh-b", {"iptables", "-t", "mangle", "-S"}).output;
  EXPECT_EQ(after.find("TB-"), std::string::npos) << after;
  EXPECT_EQ(
      run_in_netns("tb-tsh-b", {"tc", "qdisc", "show", "dev", "tb0-a"}).output.find("ingress"),
      std::string::npos);
}

// A ring of `n` nodes whose links each delay 5 ms: every node receives delayed links.
std::string ring_profile(const std::string& lab, int n) {
  const std::string path = "/tmp/" + lab + ".yaml";
  std::ofstream out(path);
  out << "lab: " << lab << "\ndefaults: {delay: 5ms, bandwidth: 100mbit}\nnodes:\n";
  for (int i = 0; i < n; ++i) out << "  n" << i << ": {}\n";
  out << "links:\n";
  for (int i = 0; i < n; ++i) out << "  - {endpoints: [n" << i << ", n" << (i + 1) % n << "]}\n";
  return path;
}

// A Debian user's soft limit on open files is 1024; the controller and each delay line hold
// descriptors per namespace, so a lab of hundreds of nodes passed it. Shown at a smaller
// scale: 60 nodes under a soft limit of 96 (the hard limit as it is), which `up` (120
// descriptors for its namespaces) and its delay lines (30 nodes each) pass and raise.
TEST(Scale, ALabLargerThanTheSoftLimitOnOpenFilesComesUp) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-nofile");
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  if (before.rlim_max != RLIM_INFINITY && before.rlim_max < 1024) GTEST_SKIP() << "hard limit";
  const std::string profile = ring_profile("tbt-nofile", 60);
  rlimit low = before;
  low.rlim_cur = 96;  // the children of this test inherit it; its own open files stay open
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  const Result up = run_testbed({"up", profile, "--prometheus", "off"});
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &before), 0);
  ASSERT_EQ(up.status, 0) << up.output;
  const Result ping =
      run_testbed({"exec", "--lab", "tbt-nofile", "n0", "--", "ping", "-c", "2", "-q", "n30"});
  EXPECT_EQ(ping.status, 0) << ping.output;
  const auto status = nlohmann::json::parse(run_testbed({"status", "tbt-nofile", "--json"}).output);
  EXPECT_EQ(status["delay_lines"]["answering"], 60);
}

// A parameter server's node holds three descriptors per worker (the worker's connection in,
// its own dealer's connection out and the dealer's mailbox): a hub of 1000 leaves passed
// the usual soft limit of 1024 and stopped accepting connections, its leaves silent at
// 'ready' until the run gave up 300 s later. Shown at a smaller scale: a hub of 40 leaves
// under a soft limit of 96, which its agent raises for itself.
TEST(Scale, AHubWithMorePeersThanTheSoftLimitOnOpenFilesTrains) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-hubfiles");
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &before), 0);
  if (before.rlim_max != RLIM_INFINITY && before.rlim_max < 1024) GTEST_SKIP() << "hard limit";
  const std::string profile = "/tmp/tbt-hubfiles.yaml";
  {
    std::ofstream out(profile);
    // No delay: no delay line, so that what is shown is the agents' own descriptors.
    out << "lab: tbt-hubfiles\ndefaults: {bandwidth: 100mbit}\nnodes:\n  hub: {}\n";
    for (int i = 0; i < 40; ++i) out << "  leaf" << i << ": {}\n";
    out << "links:\n";
    for (int i = 0; i < 40; ++i) out << "  - {endpoints: [hub, leaf" << i << "]}\n";
  }
  const Result up = run_testbed({"up", profile, "--prometheus", "off"});
  ASSERT_EQ(up.status, 0) << up.output;
  rlimit low = before;
  low.rlim_cur = 96;  // what the agents start with: the controller gives its children its own
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  const auto summary = train_json("tbt-hubfiles", {"--strategy", "async", "--servers", "hub",
                                                   "--model", "logreg", "--iterations", "3"});
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &before), 0);
  ASSERT_TRUE(summary.is_object()) << "the run failed (above)";
  EXPECT_EQ(summary["iterations"], 3);
}

// Every node's agent listens with room for all the others connecting at once: a hub's
// leaves do, at a run's start. ZeroMQ's default queue of 100 overflowed at 1000 leaves (the
// hub's ListenOverflows 112), and each connection dropped so waits out SYN retries. `ss`
// shows a listening socket's queue length as its Send-Q.
TEST(Scale, AHubListensWithRoomForEveryLeafAtOnce) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-hubq");
  constexpr int kLeaves = 150;
  const std::string profile = "/tmp/tbt-hubq.yaml";
  {
    std::ofstream out(profile);
    out << "lab: tbt-hubq\ndefaults: {bandwidth: 100mbit}\nnodes:\n  hub: {}\n";
    for (int i = 0; i < kLeaves; ++i) out << "  leaf" << i << ": {}\n";
    out << "links:\n";
    for (int i = 0; i < kLeaves; ++i) out << "  - {endpoints: [hub, leaf" << i << "]}\n";
  }
  const Result up = run_testbed({"up", profile, "--prometheus", "off"});
  ASSERT_EQ(up.status, 0) << up.output;
  BackgroundTrain trainer(guard, "tbt-hubq",
                          {"--strategy", "async", "--servers", "hub", "--model", "logreg",
                           "--iterations", "100000", "--compute-ms", "20"},
                          "/tmp/tbt-hubq.log");
  ASSERT_TRUE(trainer.wait_for("iteration 1/", 120)) << trainer.output();
  // The agents' port (7100) in the hub's namespace: "LISTEN 0 QUEUE ADDRESS:7100 ...".
  const std::string listen = shell_output("ip netns exec tb-tbt-hubq-hub ss -ltnH 'sport = :7100'");
  ASSERT_EQ(kill(trainer.pid(), SIGINT), 0);
  trainer.wait();
  std::istringstream fields(listen);
  std::string state;
  long recv_q = -1, queue = -1;
  fields >> state >> recv_q >> queue;
  EXPECT_EQ(state, "LISTEN") << listen;
  EXPECT_GE(queue, kLeaves + 1) << listen;
}

TEST(Scale, ADelayLineProcessPerCpuServesTwentyNodesAtTheirDelays) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-ring");
  const Result up = run_testbed({"up", ring_profile("tbt-ring", 20), "--prometheus", "off"});
  ASSERT_EQ(up.status, 0) << up.output;
  const auto state = lab_state_json("tbt-ring");
  int delay_lines = 0;
  for (const auto& p : state["processes"])
    delay_lines += p["argv"][0].get<std::string>().ends_with("testbed-delayline");
  // One per CPU this process may use (the lab inherits it), at most 16.
  EXPECT_EQ(delay_lines, static_cast<int>(delay_line_processes(read_cpu_allowance())));
  // n0 to n10 is 10 hops each way: 100 ms of delay, whichever process holds which hop.
  const Result ping =
      run_testbed({"exec", "--lab", "tbt-ring", "n0", "--", "ping", "-c", "3", "-q", "n10"});
  ASSERT_EQ(ping.status, 0) << ping.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(ping.output, m, std::regex("= ([0-9.]+)/([0-9.]+)/")))
      << ping.output;
  EXPECT_GE(std::stod(m[1]), 100.0) << ping.output;
  EXPECT_LT(std::stod(m[1]), 150.0) << ping.output;
  // Every node's control socket answers, for health and for the timeline.
  const auto status = nlohmann::json::parse(run_testbed({"status", "tbt-ring", "--json"}).output);
  EXPECT_EQ(status["delay_lines"]["answering"], 20);
  EXPECT_EQ(status["routes"]["count"], 20u * 19u) << "JSON gives the rule unless asked";
  const auto listed = nlohmann::json::parse(
      run_testbed({"status", "tbt-ring", "--json", "--routes"}).output)["routes"];
  ASSERT_TRUE(listed.is_array());
  EXPECT_EQ(listed.size(), 20u * 19u);
  EXPECT_NE(run_testbed({"status", "tbt-ring"}).output.find("n0>n1"), std::string::npos)
      << "a table lists a small lab's routes unasked";
  EXPECT_EQ(run_testbed({"down", "tbt-ring"}).status, 0);
  EXPECT_FALSE(LibnlKernel().namespace_exists("tb-tbt-ring-n0"));
}

TEST(Scale, TheExporterSamplesOnlyWhileWatched) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-pair");
  const Result up =
      run_testbed({"up", TESTBED_PROFILES_DIR + "/tiny/pair.yaml", "--prometheus", "off"});
  ASSERT_EQ(up.status, 0) << up.output;
  const std::string csv = "/run/testbed/tbt-pair/link_samples.csv";
  const auto samples = [&] {
    std::ifstream in(csv);
    return lines_of(std::string(std::istreambuf_iterator<char>(in), {}));
  };
  // Its first sample (a header and the pair's two directions), then nothing while at rest:
  // unwatched, it does not sample at all, so no wait here can be too short.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(samples(), 3u);
  const auto status = nlohmann::json::parse(run_testbed({"status", "tbt-pair", "--json"}).output);
  std::smatch m;
  const std::string url = status["metrics_url"];
  ASSERT_TRUE(std::regex_search(url, m, std::regex(":(\\d+)")));
  ASSERT_TRUE(http_get(std::stoi(m[1]), "/metrics").has_value());
  // Watched: a sample a second from now on. Ten seconds is ample on a loaded machine.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (samples() < 5 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(samples(), 5u);
  EXPECT_EQ(run_testbed({"down", "tbt-pair"}).status, 0);
}

}  // namespace
}  // namespace testbed::it
