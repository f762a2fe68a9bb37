// Delay, loss and schedules on real links, measured with ping and iperf3. On this kernel
// (no sch_netem) they run through the userspace delay line.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "controller/lab/teardown.h"
#include "host_snapshot.h"
#include "netns_shell.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

constexpr double kGoodputPerFrameByte = 1448.0 / 1514.0;  // see bringup_test.cpp

std::string write_profile(const std::string& lab, const std::string& links) {
  const std::string path = temp_file(lab + ".yaml");
  std::ofstream(path) << "lab: " << lab << "\nnodes: {a: {}, b: {}}\nlinks:\n" << links;
  return path;
}

std::vector<int> recorded_pids(const std::string& lab) {
  std::vector<int> pids;
  const auto state = lab_state_json(lab);  // kept: a range-for over a temporary's member dangles
  for (const auto& p : state.value("processes", nlohmann::json::array())) pids.push_back(p["pid"]);
  return pids;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Waits up to `seconds` for the lab's state to record every one of `pids` (what `exec`
// records before it becomes the command); whether it did.
bool wait_recorded(const std::string& lab, const std::vector<int>& pids, double seconds) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const auto recorded = recorded_pids(lab);
    bool all = true;
    for (int pid : pids)
      all = all && std::find(recorded.begin(), recorded.end(), pid) != recorded.end();
    if (all) return true;
    if (seconds_since(start) > seconds) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

bool any_alive(const std::vector<int>& pids) {
  for (int pid : pids) {
    if (process_start_time(pid) != 0) return true;
  }
  return false;
}

TEST(Dynamics, SlowLinkWithoutDelayKeepsTcpAtRate) {
  REQUIRE_ROOT();
  // Regression: a default queue smaller than one GSO packet dropped every such packet and
  // held TCP to 0.5 Mbit/s on this link.
  LabGuard guard("tbt-slow");
  ASSERT_EQ(
      run_testbed({"up", write_profile("tbt-slow", "  - {endpoints: [a, b], bandwidth: 10mbit}\n")})
          .status,
      0);
  const pid_t server =
      spawn_testbed({"exec", "--lab", "tbt-slow", "b", "--", "iperf3", "-s", "-1"});
  guard.own(server);
  wait_for_listener("tbt-slow", "b");
  const Result r = run_testbed({"exec", "--lab", "tbt-slow", "a", "--", "iperf3", "-c",
                                "198.18.0.2", "-t", "4", "-O", "1", "-J"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto report = nlohmann::json::parse(r.output);
  const double mbit = report["end"]["sum_received"]["bits_per_second"].get<double>() / 1e6;
  // The defect held TCP to 5% of the rate. Below, 15% is allowed: in the 6.1 guest, whose CPU
  // is emulated, one CI run measured 8.998 Mbit/s (94% of goodput) where the host measures 99%;
  // above, 5%, because the shaper must never let more through than configured.
  const double goodput = 10 * kGoodputPerFrameByte;
  EXPECT_GE(mbit, goodput * 0.85);
  EXPECT_LE(mbit, goodput * 1.05);
}

TEST(Dynamics, PingRttIsTwiceTheOneWayDelay) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-rtt");
  const Result up = run_testbed(
      {"up",
       write_profile("tbt-rtt", "  - {endpoints: [a, b], bandwidth: 100mbit, delay: 30ms}\n")});
  ASSERT_EQ(up.status, 0) << up.output;
  const Result ping = run_testbed({"exec", "--lab", "tbt-rtt", "a", "--", "ping", "-c", "20", "-i",
                                   "0.05", "-q", "198.18.0.2"});
  ASSERT_EQ(ping.status, 0) << ping.output;
  const double avg = ping_field(ping.output, std::regex(R"(= [\d.]+/([\d.]+)/)"));
  std::cout << "[ measured ] ping RTT " << avg << " ms for 30 ms each way\n";
  expect_rtt(ping.output, 60.0);
}

TEST(Dynamics, FivePercentLossLosesFivePercentOfPings) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-loss");
  // Loss on a->b only, so a lost ping is a lost request: the rate is the configured one.
  const Result up = run_testbed(
      {"up",
       write_profile("tbt-loss",
                     "  - endpoints: [a, b]\n    bandwidth: 100mbit\n    a2b: {loss: 5%}\n")});
  ASSERT_EQ(up.status, 0) << up.output;
  const Result ping = run_testbed({"exec", "--lab", "tbt-loss", "a", "--", "ping", "-c", "2000",
                                   "-i", "0.002", "-W", "1", "-q", "198.18.0.2"});
  const double loss = ping_field(ping.output, std::regex(R"(([\d.]+)% packet loss)"));
  std::cout << "[ measured ] " << loss << "% of 2000 pings lost at 5% loss\n";
  // 2 points are four standard deviations of a 2000-trial binomial at 5% (0.49 points).
  EXPECT_NEAR(loss, 5.0, 2.0) << ping.output;
  // `status --json` asks the delay line (b's, where a->b is lossy) for its figures: it
  // released the pings that were not lost, and says how late.
  if (!delay_line_backend()) return;  // netem has no such figures
  const Result status = run_testbed({"status", "tbt-loss", "--json"});
  ASSERT_EQ(status.status, 0) << status.output;
  const auto lines = nlohmann::json::parse(status.output)["delay_lines"];
  EXPECT_EQ(lines["answering"], 1) << lines;
  EXPECT_GE(lines["released"].get<uint64_t>(), 1800u) << lines;  // 2000 less 5% and noise
  EXPECT_GE(lines["lateness_ms"]["max"].get<double>(), 0.0) << lines;
  EXPECT_NE(lines["lateness_histogram"].get<std::string>().find("max:"), std::string::npos);
}

// One run of the three-step schedule: `up`, then iperf3 for 12 one-second intervals from
// the schedule's start; Mbit/s per interval (empty, with a test failure, if it did not run).
std::vector<double> three_step_intervals(LabGuard& guard) {
  const Result up = run_testbed(
      {"up", write_profile("tbt-steps",
                           "  - endpoints: [a, b]\n    delay: 5ms\n    b2a: {bandwidth: 100mbit}\n"
                           "    a2b:\n      schedule:\n        steps:\n"
                           "          - {at: 0s, bandwidth: 80mbit}\n"
                           "          - {at: 4s, bandwidth: 20mbit}\n"
                           "          - {at: 8s, bandwidth: 50mbit}\n")});
  EXPECT_EQ(up.status, 0) << up.output;
  if (up.status != 0) return {};
  const auto t0 = std::chrono::steady_clock::now();
  // Data flows a -> b (iperf3 -R from b), so the intervals are measured where it arrives.
  const pid_t server =
      spawn_testbed({"exec", "--lab", "tbt-steps", "a", "--", "iperf3", "-s", "-1"});
  guard.own(server);
  wait_for_listener("tbt-steps", "a");
  const Result r = run_testbed({"exec", "--lab", "tbt-steps", "b", "--", "iperf3", "-c",
                                "198.18.0.1", "-R", "-t", "12", "-i", "1", "-J"});
  const double offset = seconds_since(t0) - 12.0;
  EXPECT_EQ(r.status, 0) << r.output;
  // The intervals checked below sit inside their step as long as iperf3 started less than
  // a second after the schedule did.
  EXPECT_LT(offset, 1.0) << "iperf3 started too late to line up with the schedule";
  if (r.status != 0 || offset >= 1.0) return {};
  std::vector<double> mbit;
  const auto report = nlohmann::json::parse(r.output);
  for (const auto& i : report["intervals"]) {
    mbit.push_back(i["sum"]["bits_per_second"].get<double>() / 1e6);
  }
  std::cout << "[ measured ] intervals:";
  for (double m : mbit) std::cout << " " << m;
  std::cout << "\n";
  EXPECT_GE(mbit.size(), 12u);
  if (mbit.size() < 12) return {};
  return mbit;
}

TEST(Dynamics, ThreeStepScheduleShowsInIperfIntervals) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-steps");
  // Each step's interior intervals (they lie inside the step while iperf3 started within a
  // second of the schedule). The shaper cannot deliver above its rate, so the best interval
  // shows the rate; a single interval may dip when TCP recovers from a loss, so the best one,
  // not every one, must match.
  const struct {
    std::vector<size_t> intervals;
    double rate;
  } steps[] = {{{1, 2}, 80.0}, {{5, 6}, 20.0}, {{9, 10, 11}, 50.0}};
  // A moment without CPU only ever lowers a reading: CI once read 62, 17 and 45 Mbit/s
  // against 76.5, 19.1 and 47.8 on a machine running a second suite beside it. So a run
  // that reads low anywhere is run again, up to three runs, and the last one counts; a
  // step shaped wrongly reads wrong in every run, and a reading above a rate is never
  // retried.
  std::vector<double> mbit;
  for (int run = 0; run < 3; ++run) {
    if (run > 0) ASSERT_EQ(run_testbed({"down", "tbt-steps"}).status, 0);
    mbit = three_step_intervals(guard);
    ASSERT_FALSE(mbit.empty());
    bool low = false, high = false;
    for (const auto& step : steps) {
      double best = 0;
      for (size_t i : step.intervals) {
        best = std::max(best, mbit[i]);
        high = high || mbit[i] >= step.rate * 1.1;
      }
      low = low || best < step.rate * kGoodputPerFrameByte - step.rate * 0.1;
    }
    if (high || !low) break;
  }
  for (const auto& step : steps) {
    double best = 0;
    for (size_t i : step.intervals) {
      best = std::max(best, mbit[i]);
      EXPECT_LT(mbit[i], step.rate * 1.1) << "interval " << i << " above the configured rate";
    }
    EXPECT_NEAR(best, step.rate * kGoodputPerFrameByte, step.rate * 0.1) << "step at " << step.rate;
  }
  std::ifstream log("/run/testbed/tbt-steps/timeline.csv");
  int changes = 0;
  for (std::string line; std::getline(log, line);)
    changes += !line.empty() && std::isdigit(line[0]);
  EXPECT_EQ(changes, 2);
}

TEST(Dynamics, LinkSetChangesALiveLinkInPlace) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-set");
  ASSERT_EQ(run_testbed(
                {"up", write_profile("tbt-set",
                                     "  - {endpoints: [a, b], bandwidth: 100mbit, delay: 10ms}\n")})
                .status,
            0);
  const Result set = run_testbed(
      {"link", "set", "tbt-set", "b", "a", "--dir", "a2b", "--rate", "7mbit", "--delay", "40ms"});
  ASSERT_EQ(set.status, 0) << set.output;
  const auto status = nlohmann::json::parse(run_testbed({"status", "tbt-set", "--json"}).output);
  const auto& link = status["links"][0];
  EXPECT_EQ(link["b2a"]["kernel"]["rate_bits_per_s"], 7000000);  // b -> a is the profile's b2a
  EXPECT_EQ(link["b2a"]["current"]["delay_us"], 40000);
  EXPECT_EQ(link["a2b"]["kernel"]["rate_bits_per_s"], 100000000);
  const Result ping = run_testbed({"exec", "--lab", "tbt-set", "a", "--", "ping", "-c", "10", "-i",
                                   "0.05", "-q", "198.18.0.2"});
  expect_rtt(ping.output, 50.0);
  EXPECT_EQ(run_testbed({"link", "set", "tbt-set", "a", "nobody", "--rate", "1mbit"}).status, 2);
  EXPECT_EQ(run_testbed({"link", "set", "tbt-set", "a", "b", "--rate", "1mbps"}).status, 2);
}

// A fault: `link down` cuts one direction (nothing crosses, not even a ping), `link up`
// gives it back at its configured rate.
TEST(Dynamics, ALinkDownCarriesNothingAndUpRestoresItsRate) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-cut");
  ASSERT_EQ(
      run_testbed({"up", write_profile("tbt-cut", "  - {endpoints: [a, b], bandwidth: 10mbit}\n")})
          .status,
      0);
  const auto ping = [] {
    return run_testbed({"exec", "--lab", "tbt-cut", "a", "--", "ping", "-c", "10", "-i", "0.1",
                        "-W", "1", "-q", "198.18.0.2"});
  };
  ASSERT_EQ(ping().status, 0);  // up: every ping answered
  const Result down = run_testbed({"link", "down", "tbt-cut", "a", "b", "--dir", "a2b"});
  ASSERT_EQ(down.status, 0) << down.output;
  EXPECT_NE(down.output.find("down"), std::string::npos) << down.output;
  const Result cut = ping();
  EXPECT_EQ(ping_field(cut.output, std::regex(R"(([\d.]+)% packet loss)")), 100.0) << cut.output;
  const auto status = nlohmann::json::parse(run_testbed({"status", "tbt-cut", "--json"}).output);
  EXPECT_EQ(status["links"][0]["a2b"]["current"]["down"], true) << status["links"][0];
  EXPECT_EQ(status["links"][0]["b2a"]["current"].value("down", false), false);
  // Bad orders change nothing: a rate with down, a link that does not exist.
  EXPECT_EQ(run_testbed({"link", "down", "tbt-cut", "a", "b", "--rate", "1mbit"}).status, 2);
  EXPECT_EQ(run_testbed({"link", "up", "tbt-cut", "a", "nobody"}).status, 2);

  ASSERT_EQ(run_testbed({"link", "up", "tbt-cut", "a", "b"}).status, 0);
  EXPECT_EQ(ping().status, 0);
  const pid_t server = spawn_testbed({"exec", "--lab", "tbt-cut", "b", "--", "iperf3", "-s", "-1"});
  guard.own(server);
  wait_for_listener("tbt-cut", "b");
  const Result r = run_testbed({"exec", "--lab", "tbt-cut", "a", "--", "iperf3", "-c", "198.18.0.2",
                                "-t", "3", "-O", "1", "-J"});
  ASSERT_EQ(r.status, 0) << r.output;
  const double mbit =
      nlohmann::json::parse(r.output)["end"]["sum_received"]["bits_per_second"].get<double>() / 1e6;
  std::cout << "[ measured ] " << mbit << " Mbit/s after the link came up (10 configured)\n";
  EXPECT_GE(mbit, 10 * kGoodputPerFrameByte * 0.85);  // as SlowLinkWithoutDelayKeepsTcpAtRate
  EXPECT_LE(mbit, 10 * kGoodputPerFrameByte * 1.05);
}

// The same fault from a profile's schedule: the timeline cuts the direction at its time and
// logs it, state and all.
TEST(Dynamics, AScheduledDownCutsTheLinkAtItsTime) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-sched-cut");
  const Result up =
      run_testbed({"up", write_profile("tbt-sched-cut",
                                       "  - endpoints: [a, b]\n    bandwidth: 10mbit\n    a2b:\n"
                                       "      schedule: {steps: [{at: 1s, state: down}]}\n")});
  ASSERT_EQ(up.status, 0) << up.output;
  // Two seconds: the cut is due at one, and the timeline applies it within milliseconds.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const Result cut = run_testbed({"exec", "--lab", "tbt-sched-cut", "a", "--", "ping", "-c", "5",
                                  "-i", "0.1", "-W", "1", "-q", "198.18.0.2"});
  EXPECT_EQ(ping_field(cut.output, std::regex(R"(([\d.]+)% packet loss)")), 100.0) << cut.output;
  std::ifstream log("/run/testbed/tbt-sched-cut/timeline.csv");
  std::string last;
  for (std::string line; std::getline(log, line);)
    if (!line.empty() && std::isdigit(line[0])) last = line;
  EXPECT_EQ(last.substr(last.rfind(',') + 1), "down") << last;
  EXPECT_NE(last.find(",\"\","), std::string::npos) << "no error logged: " << last;
}

// A node's schedule crashes it at 4 s: what `exec` started in it is killed, what it started
// in the other node lives, and the event is logged and shown by `status`.
TEST(Dynamics, AScheduledCrashKillsTheNodesProcessesOnly) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-crash");
  const std::string profile = temp_file("tbt-crash.yaml");
  std::ofstream(profile) << "lab: tbt-crash\nnodes:\n  a: {schedule: [{at: 4s, event: crash}]}\n"
                            "  b: {}\nlinks:\n  - {endpoints: [a, b], bandwidth: 10mbit}\n";
  const Result up = run_testbed({"up", profile});
  ASSERT_EQ(up.status, 0) << up.output;
  const auto t0 = std::chrono::steady_clock::now();
  // `exec` records itself and then becomes the command: the spawned pid is the sleep's.
  const pid_t in_a = spawn_testbed({"exec", "--lab", "tbt-crash", "a", "--", "sleep", "60"});
  const pid_t in_b = spawn_testbed({"exec", "--lab", "tbt-crash", "b", "--", "sleep", "60"});
  guard.own(in_a);
  guard.own(in_b);
  ASSERT_TRUE(wait_recorded("tbt-crash", {in_a, in_b}, 4 - seconds_since(t0)))
      << "exec took the schedule's 4 s to record itself: too slow a machine to judge";
  std::this_thread::sleep_until(t0 + std::chrono::seconds(6));
  // Reaped once it has exited, which the crash (due at 4 s) makes it do; polled, not
  // assumed done by 6 s on a loaded machine.
  int status = 0;
  pid_t reaped = 0;
  for (int i = 0; i < 500 && reaped == 0; ++i) {
    reaped = waitpid(in_a, &status, WNOHANG);
    if (reaped == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(reaped, in_a) << "a's process outlived a's crash";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(waitpid(in_b, &status, WNOHANG), 0) << "b's process died with a";
  const auto st = nlohmann::json::parse(run_testbed({"status", "tbt-crash", "--json"}).output);
  for (const auto& n : st["nodes"]) EXPECT_EQ(n["state"], n["name"] == "a" ? "crashed" : "running");
  std::ifstream log("/run/testbed/tbt-crash/timeline.csv");
  std::string row;
  for (std::string line; std::getline(log, line);)
    if (line.find(",,a,") != std::string::npos) row = line;
  EXPECT_EQ(row.substr(0, row.find(',')), "4.000000") << row;
  EXPECT_TRUE(row.ends_with(",\"\",crashed")) << row;
}

// `testbed node pause --for 2s`: the node's process is stopped, then continued by the verb
// itself, which exits 0; the other node's is never stopped.
TEST(Dynamics, ANodePausedForAWhileIsStoppedThenContinuedByTheVerb) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-pause");
  ASSERT_EQ(run_testbed(
                {"up", write_profile("tbt-pause", "  - {endpoints: [a, b], bandwidth: 10mbit}\n")})
                .status,
            0);
  const pid_t in_a = spawn_testbed({"exec", "--lab", "tbt-pause", "a", "--", "sleep", "60"});
  const pid_t in_b = spawn_testbed({"exec", "--lab", "tbt-pause", "b", "--", "sleep", "60"});
  guard.own(in_a);
  guard.own(in_b);
  ASSERT_TRUE(wait_recorded("tbt-pause", {in_a, in_b}, 10));
  const pid_t pauser = spawn_testbed({"node", "pause", "tbt-pause", "a", "--for", "2s"});
  guard.own(pauser);
  // Watched until the verb exits: a was stopped at some point, b never.
  bool a_stopped = false, b_stopped = false;
  int status = 0;
  while (waitpid(pauser, &status, WNOHANG) == 0) {
    a_stopped = a_stopped || process_state(in_a) == 'T';
    b_stopped = b_stopped || process_state(in_b) == 'T';
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(a_stopped);
  EXPECT_FALSE(b_stopped);
  EXPECT_NE(process_state(in_a), 'T') << "a was left stopped";
  std::ifstream log("/run/testbed/tbt-pause/timeline.csv");
  std::string all((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(all.find(",,a,,,,,\"\",paused"), std::string::npos) << all;
  EXPECT_NE(all.find(",,a,,,,,\"\",running"), std::string::npos) << all;
}

// a, b and c, each link 10 Mbit/s; `extra` follows the links (partitions).
std::string triangle_profile(const std::string& lab, const std::string& extra) {
  const std::string path = temp_file(lab + ".yaml");
  std::ofstream(path) << "lab: " << lab << "\nnodes: {a: {}, b: {}, c: {}}\nlinks:\n"
                      << "  - {endpoints: [a, b], bandwidth: 10mbit}\n"
                         "  - {endpoints: [b, c], bandwidth: 10mbit}\n"
                         "  - {endpoints: [a, c], bandwidth: 10mbit}\n"
                      << extra;
  return path;
}

// A partition of c from 1 s to 6 s: a's pings to c go unanswered meanwhile (both links to c
// are cut), a's to b are answered (their link does not cross), and after the heal c answers.
TEST(Dynamics, APartitionCutsExactlyTheCrossingPairsUntilItHeals) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-part");
  const std::string profile =
      triangle_profile("tbt-part", "partitions:\n  - {nodes: [c], at: 1s, heal: 6s}\n");
  const Result up = run_testbed({"up", profile});
  ASSERT_EQ(up.status, 0) << up.output;
  const auto t0 = std::chrono::steady_clock::now();
  const auto ping = [](const char* to) {
    return run_testbed({"exec", "--lab", "tbt-part", "a", "--", "ping", "-c", "3", "-i", "0.2",
                        "-W", "1", "-q", to});
  };
  const std::regex lost(R"(([\d.]+)% packet loss)");
  // From 2 s (a second after the cut is due), done well before 6 s.
  std::this_thread::sleep_until(t0 + std::chrono::seconds(2));
  const Result to_b = ping("b"), to_c = ping("c");
  ASSERT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(6))
      << "the pings outlasted the partition: too slow a machine to judge";
  EXPECT_EQ(ping_field(to_b.output, lost), 0.0) << to_b.output;
  EXPECT_EQ(ping_field(to_c.output, lost), 100.0) << to_c.output;
  std::this_thread::sleep_until(t0 + std::chrono::seconds(7));
  const Result healed = ping("c");
  EXPECT_EQ(ping_field(healed.output, lost), 0.0) << healed.output;
  // Four directions cut and four restored, each logged.
  std::ifstream log("/run/testbed/tbt-part/timeline.csv");
  int downs = 0, ups = 0;
  for (std::string line; std::getline(log, line);) {
    if (line.empty() || !std::isdigit(line[0])) continue;
    downs += line.ends_with(",down");
    ups += line.ends_with(",up");
  }
  EXPECT_EQ(downs, 4);
  EXPECT_EQ(ups, 4);
}

// A partition by hand (`testbed partition`): c cut from a and b. Its links go down both
// ways, a still reaches b; `--heal` restores every crossing link, even one cut before by
// `link down`; `--for` restores only what it cut itself. Bad requests change nothing.
TEST(Dynamics, APartitionByHandCutsTheCrossingLinksAndRestoresWhatItCut) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-vpart");
  ASSERT_EQ(run_testbed({"up", triangle_profile("tbt-vpart", "")}).status, 0);
  const auto ping = [](const char* to) {
    const Result r = run_testbed({"exec", "--lab", "tbt-vpart", "a", "--", "ping", "-c", "2", "-i",
                                  "0.2", "-W", "1", "-q", to});
    return ping_field(r.output, std::regex(R"(([\d.]+)% packet loss)"));
  };
  // Which directions are down, as "from>to" in status's order.
  const auto down = [] {
    std::set<std::string> out;
    const auto status =
        nlohmann::json::parse(run_testbed({"status", "tbt-vpart", "--json"}).output);
    for (const auto& l : status["links"])
      for (const char* dir : {"a2b", "b2a"})
        if (l[dir]["current"]["down"].get<bool>())
          out.insert(l[dir]["from"].get<std::string>() + ">" + l[dir]["to"].get<std::string>());
    return out;
  };
  // Refused, and nothing changed: a partition of every node, an unknown node, both options.
  EXPECT_EQ(run_testbed({"partition", "tbt-vpart", "a,b,c"}).status, 2);
  EXPECT_EQ(run_testbed({"partition", "tbt-vpart", "z"}).status, 2);
  EXPECT_EQ(run_testbed({"partition", "tbt-vpart", "c", "--for", "1s", "--heal"}).status, 2);
  EXPECT_TRUE(down().empty());

  ASSERT_EQ(run_testbed({"link", "down", "tbt-vpart", "b", "c"}).status, 0);
  const Result cut = run_testbed({"partition", "tbt-vpart", "c"});
  ASSERT_EQ(cut.status, 0) << cut.output;
  EXPECT_EQ(down(), (std::set<std::string>{"a>c", "c>a", "b>c", "c>b"}));
  EXPECT_EQ(ping("c"), 100.0);
  EXPECT_EQ(ping("b"), 0.0);
  ASSERT_EQ(run_testbed({"partition", "tbt-vpart", "c", "--heal"}).status, 0);
  EXPECT_TRUE(down().empty());
  EXPECT_EQ(ping("c"), 0.0);

  ASSERT_EQ(run_testbed({"link", "down", "tbt-vpart", "b", "c"}).status, 0);
  const Result timed = run_testbed({"partition", "tbt-vpart", "c", "--for", "1s"});
  ASSERT_EQ(timed.status, 0) << timed.output;
  EXPECT_EQ(down(), (std::set<std::string>{"b>c", "c>b"})) << "b-c was down before: it stays";
  EXPECT_EQ(ping("c"), 0.0) << "a-c is back";
}

// Routing around a dead link (`reroute:`): a's pings to c, every 20 ms, go direct until the
// a-c link is cut; after the convergence delay (300 ms) they go by b, and the longest gap
// between replies is the convergence plus about one round trip. Restored, the route is
// direct again.
TEST(Dynamics, ARerouteMovesAPingsPathWithinTheConvergenceDelay) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-rr");
  ASSERT_EQ(
      run_testbed({"up", triangle_profile("tbt-rr", "reroute: {convergence: 300ms}\n")}).status, 0);
  const auto route_dev = [] {
    return run_testbed(
               {"exec", "--lab", "tbt-rr", "a", "--", "ip", "-o", "route", "get", "198.18.0.3"})
        .output;
  };
  EXPECT_NE(route_dev().find("dev tb2-c"), std::string::npos) << route_dev();
  const std::string log = temp_file("tbt-rr-ping.txt");
  const pid_t ping = spawn_testbed({"exec", "--lab", "tbt-rr", "a", "--", "sh", "-c",
                                    "ping -D -n -i 0.02 -c 150 -W 1 198.18.0.3 > " + log});
  guard.own(ping);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const Result cut = run_testbed({"link", "down", "tbt-rr", "a", "c"});
  ASSERT_EQ(cut.status, 0) << cut.output;
  EXPECT_NE(cut.output.find("routes: converged around 1 dead link"), std::string::npos)
      << cut.output;
  int status = 0;
  ASSERT_EQ(waitpid(ping, &status, 0), ping);
  std::ifstream in(log);
  const std::regex reply(R"(^\[([\d.]+)\].*icmp_seq=(\d+))");
  std::vector<double> times;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, reply)) times.push_back(std::stod(m[1]));
  }
  ASSERT_GT(times.size(), 50u);
  double gap = 0;
  for (size_t i = 1; i < times.size(); ++i) gap = std::max(gap, times[i] - times[i - 1]);
  std::cout << "[ measured ] longest gap between replies across the cut: " << gap * 1000
            << " ms (convergence 300 ms, round trip by b 20 ms)\n";
  // The cut shows (no reply for the convergence, less a ping interval for the phase), and
  // the detour carries within the convergence, a round trip, a ping interval and 300 ms
  // for a loaded host's process starts.
  EXPECT_GE(gap, 0.28);
  EXPECT_LE(gap, 0.3 + 0.02 + 0.02 + 0.3);
  EXPECT_NE(route_dev().find("dev tb0-b"), std::string::npos) << route_dev();
  ASSERT_EQ(run_testbed({"link", "up", "tbt-rr", "a", "c"}).status, 0);
  EXPECT_NE(route_dev().find("dev tb2-c"), std::string::npos) << "direct again: " << route_dev();
}

// The timeline converges too: a-c cut by its schedule at 1 s and back at 3 s. Between,
// a's route to c runs by b; after, direct again; reroutes.csv has a row for each.
TEST(Dynamics, AScheduledCutIsRoutedAroundAndBackByTheTimeline) {
  REQUIRE_ROOT();
  LabGuard guard("tbt-rrs");
  const std::string path = temp_file("tbt-rrs.yaml");
  std::ofstream(path) << "lab: tbt-rrs\nnodes: {a: {}, b: {}, c: {}}\nreroute: {}\nlinks:\n"
                         "  - {endpoints: [a, b], bandwidth: 10mbit}\n"
                         "  - {endpoints: [b, c], bandwidth: 10mbit}\n"
                         "  - endpoints: [a, c]\n    bandwidth: 10mbit\n"
                         "    schedule: {steps: [{at: 1s, state: down}, {at: 3s, state: up}]}\n";
  ASSERT_EQ(run_testbed({"up", path}).status, 0);
  const auto t0 = std::chrono::steady_clock::now();
  const auto route = [] {
    return run_testbed(
               {"exec", "--lab", "tbt-rrs", "a", "--", "ip", "-o", "route", "get", "198.18.0.3"})
        .output;
  };
  // At 2 s: cut at 1 s, converged by 1.3 s (the default 300 ms).
  std::this_thread::sleep_until(t0 + std::chrono::seconds(2));
  EXPECT_NE(route().find("dev tb0-b"), std::string::npos) << route();
  std::this_thread::sleep_until(t0 + std::chrono::milliseconds(4500));
  EXPECT_NE(route().find("dev tb2-c"), std::string::npos) << route();
  std::ifstream rows("/run/testbed/tbt-rrs/reroutes.csv");
  int count = 0;
  for (std::string line; std::getline(rows, line);) count += !line.empty() && std::isdigit(line[0]);
  EXPECT_EQ(count, 2);
}

// Killed in the middle of its faults (a link cut by hand, a partition and a node's pause
// whose verbs wait to undo them, the timeline mid-flap with routes converged around the
// cuts), the lab still comes down whole: `down` ends every process it recorded, the paused
// one included, and the host is as it was.
TEST(Dynamics, EverythingIsCleanedAfterAKillMidFault) {
  REQUIRE_ROOT();
  const HostSnapshot before = take_host_snapshot();
  const std::string lab = "tbt-midfault";
  {
    LabGuard guard(lab);
    const std::string path = temp_file(lab + ".yaml");
    std::ofstream(path) << "lab: " << lab << "\nnodes: {a: {}, b: {}, c: {}, d: {}}\n"
                        << "reroute: {convergence: 50ms}\nlinks:\n"
                        << "  - {endpoints: [a, b], bandwidth: 10mbit, delay: 5ms}\n"
                        << "  - {endpoints: [b, c], bandwidth: 10mbit, "
                           "schedule: {flap: {every: 400ms, down_for: 200ms}}}\n"
                        << "  - {endpoints: [c, d], bandwidth: 10mbit}\n"
                        << "  - {endpoints: [d, a], bandwidth: 10mbit}\n";
    const Result up = run_testbed({"up", path});
    ASSERT_EQ(up.status, 0) << up.output;
    const pid_t sleeper = spawn_testbed({"exec", "--lab", lab, "a", "--", "sleep", "1000"});
    guard.own(sleeper);
    ASSERT_TRUE(wait_recorded(lab, {sleeper}, 10));
    std::vector<pid_t> verbs = {spawn_testbed({"node", "pause", lab, "a", "--for", "60s"}),
                                spawn_testbed({"partition", lab, "c", "--for", "60s"})};
    for (pid_t v : verbs) guard.own(v);
    ASSERT_EQ(run_testbed({"link", "down", lab, "a", "b"}).status, 0);
    // Until the pause and the partition are applied (each logs a row), while b-c flaps.
    const auto rows_with = [&](const std::string& what) {
      std::ifstream csv("/run/testbed/" + lab + "/timeline.csv");
      int n = 0;
      for (std::string line; std::getline(csv, line);) n += line.find(what) != std::string::npos;
      return n;
    };
    for (int i = 0; i < 1000 && (rows_with("paused") == 0 || rows_with("c,d") == 0); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_GT(rows_with("paused"), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    // Everything that would undo a fault, killed outright: the verbs and the timeline.
    for (pid_t v : verbs) kill(v, SIGKILL);
    const auto state = lab_state_json(lab);
    for (const auto& p : state.value("processes", nlohmann::json::array()))
      for (const auto& arg : p.value("argv", std::vector<std::string>{}))
        if (arg == "_timeline") kill(p["pid"].get<int>(), SIGKILL);
    const auto pids = recorded_pids(lab);
    const Result down = run_testbed({"down", lab});
    EXPECT_EQ(down.status, 0) << down.output;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(any_alive(pids));
    EXPECT_FALSE(std::filesystem::exists("/run/testbed/" + lab));
  }
  EXPECT_EQ(take_host_snapshot(), before);
}

TEST(Dynamics, DownAndCleanRemoveDelayLinesTimelineAndRules) {
  REQUIRE_ROOT();
  const HostSnapshot before = take_host_snapshot();
  const std::string links =
      "  - endpoints: [a, b]\n    delay: 20ms\n    loss: 1%\n"
      "    schedule: {random: {every: 1s, bandwidth: 20mbit..155mbit}}\n";
  {
    LabGuard guard("tbt-procs");
    ASSERT_EQ(run_testbed({"up", write_profile("tbt-procs", links)}).status, 0);
    const auto pids = recorded_pids("tbt-procs");
    // A delay line in each node, the timeline, the exporter and the lab's Prometheus (with
    // netem, the last three).
    EXPECT_EQ(pids.size(), delay_line_backend() ? 5u : 3u);
    EXPECT_TRUE(any_alive(pids));
    ASSERT_EQ(run_testbed({"down", "tbt-procs"}).status, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(any_alive(pids));
    EXPECT_EQ(take_host_snapshot(), before);
  }
  {
    LabGuard guard("tbt-procs");
    // Killed after its processes started but before the lab was marked up.
    const pid_t up = spawn_testbed({"up", write_profile("tbt-procs", links)},
                                   {{"TESTBED_FAULT_STOP_AFTER_START", "1"}});
    int status = 0;
    ASSERT_EQ(waitpid(up, &status, WUNTRACED), up);
    ASSERT_TRUE(WIFSTOPPED(status));
    kill(up, SIGKILL);
    waitpid(up, &status, 0);
    const auto pids = recorded_pids("tbt-procs");
    EXPECT_TRUE(any_alive(pids));
    const Result clean = run_testbed({"clean"});
    EXPECT_EQ(clean.status, 0) << clean.output;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_FALSE(any_alive(pids));
    EXPECT_FALSE(std::filesystem::exists("/run/testbed/tbt-procs"));
    EXPECT_EQ(take_host_snapshot(), before);
  }
}

}  // namespace
}  // namespace testbed::it
