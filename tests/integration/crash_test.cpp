// A testbed command killed outright, at any moment, leaves nothing `clean` cannot remove.
// Rather than killing at random times and hoping to land on the bad moments, each test
// first runs the command once with a trace of its crash points (netns/crash_point.h), then
// runs it again and again, stopped at points spread over every phase of that trace and
// killed there with SIGKILL; after each kill, `clean` must succeed and the host must be as
// it was before: no namespace, interface, route, rule, hostname, hosts file, lab state or
// process of the lab left.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "host_snapshot.h"
#include "testbed_cli.h"

namespace testbed::it {
namespace {

namespace fs = std::filesystem;

// The crash points one run of `args` passes, in order.
std::vector<std::string> crash_trace(const std::vector<std::string>& args) {
  const std::string trace = temp_file("crash-trace");
  fs::remove(trace);
  const Result r = run_testbed(args, {{"TESTBED_CRASH_TRACE", trace}});
  EXPECT_EQ(r.status, 0) << r.output;
  std::vector<std::string> points;
  std::ifstream in(trace);
  for (std::string line; std::getline(in, line);) points.push_back(line);
  fs::remove(trace);
  return points;
}

// `kills` point numbers (1-based) over `points`: the first and the last of every kind of
// point, so every phase is hit where it begins and ends, then evenly spaced ones until
// there are `kills` (or every point, when there are fewer).
std::vector<long> spread(const std::vector<std::string>& points, size_t kills) {
  std::set<long> chosen;
  std::set<std::string> seen;
  for (size_t i = 0; i < points.size(); ++i) {
    if (seen.insert(points[i]).second) chosen.insert(long(i) + 1);
  }
  seen.clear();
  for (size_t i = points.size(); i-- > 0;) {
    if (seen.insert(points[i]).second) chosen.insert(long(i) + 1);
  }
  const size_t want = std::min(kills, points.size());
  for (size_t step = 1; chosen.size() < want; ++step) {
    // Evenly spaced, the spacing halved each round until enough are chosen.
    const size_t parts = step * want;
    for (size_t k = 1; k < parts && chosen.size() < want; ++k)
      chosen.insert(long(k * points.size() / parts) + 1);
  }
  return {chosen.begin(), chosen.end()};
}

// Pids of processes whose command line names `text` (the lab's name is in every command
// line the testbed starts for a lab: its directory, or the lab itself).
std::vector<int> processes_naming(const std::string& text) {
  std::vector<int> pids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (!std::all_of(name.begin(), name.end(), ::isdigit) || std::stoi(name) == getpid()) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(text) != std::string::npos) pids.push_back(std::stoi(name));
  }
  return pids;
}

// Runs `args` stopped at crash point `at` and kills it there. False (with a failure) when
// the command ended before reaching the point.
bool kill_at(const std::vector<std::string>& args, long at) {
  const pid_t pid = spawn_testbed(args, {{"TESTBED_CRASH_AT", std::to_string(at)}});
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, WUNTRACED), pid);
  if (!WIFSTOPPED(status)) {
    ADD_FAILURE() << "testbed " << args.front() << " ended (status " << status
                  << ") before crash point " << at;
    return false;
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return true;
}

// What a kill must leave once `clean` has run: the host as `before`, no lab directory, no
// process naming the lab. The gates of processes a killed command started and never
// released exit on their own, at once; a short wait lets them.
void expect_restored(const std::string& lab, const HostSnapshot& before, const std::string& what) {
  const Result clean = run_testbed({"clean", "--all"});
  EXPECT_EQ(clean.status, 0) << what << ": " << clean.output;
  EXPECT_FALSE(fs::exists("/run/testbed/" + lab)) << what << ": the lab's state is left";
  EXPECT_EQ(take_host_snapshot(), before) << what;
  std::vector<int> left;
  for (int i = 0; i < 100 && !(left = processes_naming("/" + lab + "/")).empty(); ++i)
    usleep(20'000);
  EXPECT_TRUE(left.empty()) << what << ": " << left.size() << " processes of the lab left, e.g. "
                            << left.front();
}

// How many kills of a trace a test makes: `kills` on this host; under an emulated CPU (the
// kernel test's guest, where each kill and `clean` take seconds) a third, at least four,
// spread over the same trace. That guest runs these for its kernel's objects (netem, IFB,
// cgroup v2), which every phase of the trace still reaches; the host runs them in full.
size_t kills_here(size_t kills) {
  return std::getenv("TESTBED_EMULATED_CPU") ? std::max<size_t>(4, kills / 3) : kills;
}

class Crash : public ::testing::Test {
 protected:
  // Kills `up` of `profile` (renamed to `lab`) at `kills` points spread over its trace.
  void kill_up_throughout(const std::string& profile, const std::string& lab, size_t kills) {
    const HostSnapshot before = take_host_snapshot();
    LabGuard guard(lab);
    const std::vector<std::string> up = {"up", profile_as_lab(profile, lab)};
    const auto points = crash_trace(up);
    kills = kills_here(kills);
    ASSERT_GT(points.size(), kills) << "too few crash points in up of " << profile;
    ASSERT_EQ(run_testbed({"down", lab}).status, 0);
    std::set<std::string> phases;
    for (const auto& p : points) phases.insert(p.substr(0, p.find(':')));
    // Every phase of a bring-up has its points: the plan's steps, the state's writes,
    // hostnames and hosts files, the processes started (delay lines, timeline, exporter,
    // Prometheus).
    for (const char* phase : {"up", "state", "identity", "spawn"})
      EXPECT_TRUE(phases.count(phase)) << "no crash point of phase " << phase;
    int killed = 0;
    for (const long at : spread(points, kills)) {
      const std::string what = "up " + profile + " killed at point " + std::to_string(at) + " of " +
                               std::to_string(points.size()) + " (" + points[size_t(at) - 1] + ")";
      if (!kill_at(up, at)) break;
      ++killed;
      expect_restored(lab, before, what);
      if (HasFailure()) break;  // one torn state is enough to read; the rest would repeat it
    }
    std::cout << "up " << profile << ": " << killed << " kills over " << points.size()
              << " crash points, every one restored by clean: " << (HasFailure() ? "no" : "yes")
              << "\n";
  }
};

TEST_F(Crash, UpKilledAnywhereInInternet2IsCleaned) {
  REQUIRE_ROOT();
  // internet2-dynamic: nine nodes with delay lines, schedules (so a timeline), the exporter
  // and Prometheus.
  kill_up_throughout("internet2-dynamic.yaml", "tbt-crash-i2", 26);
}

TEST_F(Crash, UpKilledAnywhereInB4IsCleaned) {
  REQUIRE_ROOT();
  kill_up_throughout("b4.yaml", "tbt-crash-b4", 26);
}

// A lab with compute limits: its nodes' control groups too (node_cgroup.h).
TEST_F(Crash, UpKilledAnywhereWithComputeLimitsIsCleaned) {
  REQUIRE_ROOT();
  kill_up_throughout("tiny/compute4.yaml", "tbt-crash-cpu", 8);
}

TEST_F(Crash, DownKilledAnywhereIsCleaned) {
  REQUIRE_ROOT();
  const HostSnapshot before = take_host_snapshot();
  const std::string lab = "tbt-crash-down";
  LabGuard guard(lab);
  const std::vector<std::string> up = {"up", profile_as_lab("internet2-dynamic.yaml", lab)};
  ASSERT_EQ(run_testbed(up).status, 0);
  const auto points = crash_trace({"down", lab});
  ASSERT_GE(points.size(), 8u);
  for (const long at : spread(points, kills_here(8))) {
    ASSERT_EQ(run_testbed(up).status, 0);
    if (!kill_at({"down", lab}, at)) break;
    expect_restored(
        lab, before,
        "down killed at point " + std::to_string(at) + " (" + points[size_t(at) - 1] + ")");
    if (HasFailure()) break;
  }
}

// `train` and `launch` killed while starting their processes: the lab stays up, and
// `clean` (without --all) ends what the dead command left and nothing else.
class CrashOnALab : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!running_as_root()) GTEST_SKIP() << "needs root: builds real namespaces";
    ASSERT_EQ(run_testbed({"up", profile_as_lab("tiny/triangle.yaml", lab_)}).status, 0);
    lab_processes_ = lab_state_json(lab_)["processes"].size();
  }
  void kill_throughout(const std::vector<std::string>& args, size_t kills) {
    const auto points = crash_trace(args);
    kills = kills_here(kills);
    ASSERT_GE(points.size(), kills);
    for (const long at : spread(points, kills)) {
      const std::string what = args.front() + " killed at point " + std::to_string(at) + " (" +
                               points[size_t(at) - 1] + ")";
      if (!kill_at(args, at)) break;
      const Result clean = run_testbed({"clean"});
      EXPECT_EQ(clean.status, 0) << what << ": " << clean.output;
      EXPECT_EQ(lab_state_json(lab_)["processes"].size(), lab_processes_)
          << what << ": records left beside the lab's own";
      std::vector<int> left;
      for (int i = 0; i < 100 && !(left = processes_naming(marker_)).empty(); ++i) usleep(20'000);
      EXPECT_TRUE(left.empty()) << what << ": " << left.size() << " of its processes left";
      EXPECT_EQ(run_testbed({"exec", "--lab", lab_, "a", "--", "true"}).status, 0)
          << what << ": the lab no longer works";
      if (HasFailure()) break;
    }
  }
  std::string lab_ = "tbt-crash-run";
  // Text in the command line of every process the command under test starts.
  std::string marker_;
  size_t lab_processes_ = 0;
  LabGuard guard_{lab_};
};

TEST_F(CrashOnALab, TrainKilledWhileStartingAgentsIsCleaned) {
  marker_ = "/" + lab_ + "/agents.sock";
  kill_throughout({"train", lab_, "--strategy", "ps", "--scale", "0.01", "--iterations", "1"}, 8);
}

TEST_F(CrashOnALab, LaunchKilledWhileStartingRanksIsCleaned) {
  marker_ = "tbt-crash-launch-marker";
  // Five seconds: longer than the check for leftovers waits, short for the traced run.
  kill_throughout({"launch", lab_, "--", "sh", "-c", "sleep 5", marker_}, 6);
}

}  // namespace
}  // namespace testbed::it
