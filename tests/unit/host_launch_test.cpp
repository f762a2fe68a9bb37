// A launch across hosts without root or a network: the messages between the controller and
// the hosts' `testbed agents` (every field checked, both ways), one outcome from this host's
// ranks and the others', and the failure line naming the host of a failed rank.
#include <gtest/gtest.h>

#include <functional>

#include "controller/launch/host_launch_messages.h"
#include "controller/launch/host_outcomes.h"
#include "controller/launch/job_metrics.h"
#include "controller/launch/launch_report.h"

namespace testbed {
namespace {

// A rank's outcome with the fields these tests set.
RankOutcome ended(pid_t pid, int status, bool stopped, double ended_s) {
  RankOutcome o;
  o.pid = pid;
  o.status = status;
  o.stopped = stopped;
  o.ended_s = ended_s;
  return o;
}

LaunchCommand command() {
  LaunchCommand c;
  c.job = "train";
  c.stamp = "2026-11-28T21:00:00Z-train";
  c.command = {"python3", "train.py", "--steps", "8"};
  c.nodes = "all";
  c.master_port = 29500;
  c.max_seconds = 60;
  c.ranks = {3, 4, 5};
  return c;
}

HostRanksDone done(const std::string& status, std::vector<int> ranks, int failed = -1) {
  HostRanksDone d;
  d.status = status;
  d.failed_rank = failed;
  d.wall_s = 4;
  d.ranks = ranks;
  for (const int r : ranks) {
    RankOutcome o;
    o.pid = 1000 + r;
    o.status = r == failed ? 128 + 9 : 0;
    o.ended_s = 3.5;
    o.stopped = status == "interrupted";
    o.stderr_tail = {"last words of " + std::to_string(r)};
    d.outcomes.push_back(o);
  }
  return d;
}

TEST(HostLaunchMessages, EachMessageReadsBackAsItWasSent) {
  const LaunchCommand c = launch_command_from_json(to_json(command()));
  EXPECT_EQ(c.job, "train");
  EXPECT_EQ(c.stamp, command().stamp);
  EXPECT_EQ(c.command, command().command);
  EXPECT_EQ(c.master_port, 29500);
  EXPECT_EQ(c.max_seconds, 60);
  EXPECT_EQ(c.ranks, (std::vector<int>{3, 4, 5}));

  HostLines lines;
  lines.lines = {{4, false, "step 1", 0}, {5, true, R"({"loss": 0.5})", 1.25}};
  lines.dropped = 2;
  const HostLines l = host_lines_from_json(to_json(lines), 9);
  ASSERT_EQ(l.lines.size(), 2u);
  EXPECT_EQ(l.lines[1].rank, 5);
  EXPECT_TRUE(l.lines[1].metric);
  EXPECT_EQ(l.lines[1].text, R"({"loss": 0.5})");
  EXPECT_EQ(l.lines[1].t_s, 1.25);
  EXPECT_EQ(l.dropped, 2u);

  HostRanksDone sent = done("failed", {3, 4, 5}, 4);
  sent.wan_bytes = {{"chicago>atlanta", 1234}};
  const HostRanksDone d = host_ranks_done_from_json(to_json(sent), 9);
  EXPECT_EQ(d.wan_bytes, sent.wan_bytes);
  EXPECT_EQ(d.status, "failed");
  EXPECT_EQ(d.failed_rank, 4);
  ASSERT_EQ(d.outcomes.size(), 3u);
  EXPECT_EQ(d.outcomes[1].status, 137);
  EXPECT_EQ(d.outcomes[1].pid, 1004);
  EXPECT_EQ(d.outcomes[1].stderr_tail, std::vector<std::string>{"last words of 4"});
}

TEST(HostLaunchMessages, EveryBadFieldIsRefused) {
  const auto launch_with = [](const char* key, nlohmann::json value) {
    nlohmann::json j = to_json(command());
    j[key] = std::move(value);
    return j;
  };
  // Paths where a name belongs, no command, a port or a time out of range, ranks repeated.
  for (const auto& j :
       {launch_with("stamp", "../../etc"), launch_with("stamp", ".hidden"),
        launch_with("job", "a/b"), launch_with("job", std::string("a\nb")),
        launch_with("command", nlohmann::json::array()), launch_with("command", {1, 2}),
        launch_with("master_port", 0), launch_with("master_port", 70000),
        launch_with("max_seconds", -1), launch_with("max_seconds", "60"),
        launch_with("ranks", {1, 1}), launch_with("ranks", {-1}), launch_with("cmd", "quit")}) {
    EXPECT_THROW(launch_command_from_json(j), MalformedMessage) << j.dump();
  }
  nlohmann::json no_job = to_json(command());
  no_job.erase("job");
  EXPECT_THROW(launch_command_from_json(no_job), MalformedMessage);

  // A rank outside the job, a line too long, a time that is not one.
  const auto lines_with = [](nlohmann::json line) {
    return nlohmann::json{{"event", "lines"}, {"lines", {line}}, {"dropped", 0}};
  };
  const nlohmann::json good = {{"rank", 1}, {"metric", false}, {"text", "x"}, {"t_s", 0}};
  EXPECT_NO_THROW(host_lines_from_json(lines_with(good), 9));
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"rank", 9},
           {"rank", -1},
           {"rank", "1"},
           {"metric", 1},
           {"text", std::string(kMaxMetricsLine + 2, 'x')},
           {"t_s", -1},
           {"t_s", nlohmann::json()}}) {
    nlohmann::json bad = good;
    bad[key] = value;
    EXPECT_THROW(host_lines_from_json(lines_with(bad), 9), MalformedMessage) << key;
  }
  nlohmann::json many = {{"event", "lines"}, {"lines", nlohmann::json::array()}, {"dropped", 0}};
  for (size_t i = 0; i <= kLinesPerMessage; ++i) many["lines"].push_back(good);
  EXPECT_THROW(host_lines_from_json(many, 9), MalformedMessage);

  // An outcome: a status that is none, a failed rank not among its ranks, a pid or status out
  // of range, a rank twice.
  const auto done_with = [](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = to_json(done("failed", {3, 4}, 4));
    edit(j);
    return j;
  };
  for (const auto& j :
       {done_with([](auto& j) { j["status"] = "won"; }),
        done_with([](auto& j) { j["failed_rank"] = 5; }),
        done_with([](auto& j) { j["ranks"][0]["pid"] = int64_t{1} << 40; }),
        done_with([](auto& j) { j["ranks"][0]["status"] = 256; }),
        done_with([](auto& j) { j["ranks"][1]["rank"] = 3; }),
        done_with([](auto& j) { j["ranks"][0]["stopped"] = "no"; }),
        done_with([](auto& j) { j["ranks"][0]["ended_s"] = "soon"; }), done_with([](auto& j) {
          j["wan_bytes"] = {{"nodirection", 1}};
        }),
        done_with([](auto& j) {
          j["wan_bytes"] = {{"a>b", -1}};
        })}) {
    EXPECT_THROW(host_ranks_done_from_json(j, 9), MalformedMessage) << j.dump();
  }
}

TEST(HostOutcomes, ARankFailedElsewhereFailsTheJobInRankOrderAndNamesItsHost) {
  // Ranks 0-2 here; 3-5 on host2, whose rank 4 was killed; 6-8 on host3, stopped.
  JobOutcome local;
  local.status = "interrupted";
  local.wall_s = 5;
  for (int r = 0; r < 3; ++r) local.ranks.push_back(ended(100 + r, 143, true, 4.0));
  HostsPart hosts;
  hosts.ranks_of_host = {{"host2", {3, 4, 5}}, {"host3", {6, 7, 8}}};
  hosts.done = {{"host2", done("failed", {3, 4, 5}, 4)}, {"host3", done("interrupted", {6, 7, 8})}};
  hosts.failed_host = "host2";
  hosts.failed_rank = 4;
  const JobOutcome job = merge_host_outcomes(9, {0, 1, 2}, local, hosts, false);
  EXPECT_EQ(job.status, "failed");
  EXPECT_EQ(job.failed_rank, 4);
  ASSERT_EQ(job.ranks.size(), 9u);
  EXPECT_EQ(job.ranks[0].pid, 100);
  EXPECT_EQ(job.ranks[4].status, 137);
  EXPECT_TRUE(job.ranks[7].stopped);
  EXPECT_EQ(job.wall_s, 5);

  std::vector<RankPlan> plans(9);
  for (int r = 0; r < 9; ++r) {
    plans[r].rank = r;
    plans[r].node = "n" + std::to_string(r);
    plans[r].host = r < 3 ? "" : r < 6 ? "host2" : "host3";
    plans[r].stderr_path = "/run/testbed/lab/launches/x/n" + std::to_string(r) + ".stderr";
  }
  const auto lines = failure_lines(plans, job, 0);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0], "node n4 (rank 4) on host host2 exited with signal 9 (Killed) after 3.5 s");
  EXPECT_EQ(lines[1], "last lines of its stderr (host host2:" + plans[4].stderr_path + "):");
}

TEST(HostOutcomes, ALostHostFailsTheJobAndItsRanksSayWhy) {
  JobOutcome local;
  local.status = "interrupted";
  local.ranks.push_back(ended(100, 143, true, 1.0));
  HostsPart hosts;
  hosts.ranks_of_host = {{"host2", {1, 2}}};
  hosts.lost = {{"host2", "host host2 went silent for 30 s"}};
  hosts.failed_host = "host2";
  const JobOutcome job = merge_host_outcomes(3, {0}, local, hosts, false);
  EXPECT_EQ(job.status, "failed");
  EXPECT_EQ(job.failed_rank, 1);  // the lost host's first rank
  EXPECT_EQ(job.ranks[1].status, -1);
  EXPECT_EQ(job.ranks[2].stderr_tail, std::vector<std::string>{"host host2 went silent for 30 s"});
  std::vector<RankPlan> plans(3);
  for (int r = 0; r < 3; ++r) plans[r].rank = r, plans[r].node = "n" + std::to_string(r);
  plans[1].host = plans[2].host = "host2";
  EXPECT_EQ(failure_lines(plans, job, 0).at(0),
            "node n1 (rank 1) on host host2 never reported how it ended");
}

TEST(HostOutcomes, CompletedEverywhereCompletesAndASignalInterrupts) {
  JobOutcome local;
  local.status = "completed";
  local.ranks.push_back(ended(100, 0, false, 1.0));
  HostsPart hosts;
  hosts.ranks_of_host = {{"host2", {1}}};
  hosts.done = {{"host2", done("completed", {1})}};
  EXPECT_EQ(merge_host_outcomes(2, {0}, local, hosts, false).status, "completed");
  EXPECT_EQ(merge_host_outcomes(2, {0}, local, hosts, true).status, "interrupted");
  hosts.done["host2"].status = "timed_out";
  EXPECT_EQ(merge_host_outcomes(2, {0}, local, hosts, false).status, "timed_out");
  // A host that could not start its ranks (its error) fails the job, naming why.
  hosts.done["host2"] = done("failed", {});
  hosts.done["host2"].error = "python9: no such program";
  const JobOutcome job = merge_host_outcomes(2, {0}, local, hosts, false);
  EXPECT_EQ(job.status, "failed");
  EXPECT_EQ(job.ranks[1].stderr_tail,
            std::vector<std::string>{"host host2: python9: no such program"});
}

}  // namespace
}  // namespace testbed
