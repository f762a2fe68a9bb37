// Node faults (controller/topology/node_events.h, controller/dynamics/node_faults.h): a
// node's schedule is read and refused where it is wrong; a crash, pause or resume signals
// only the node's job processes; the timeline applies the schedule with each pause's
// resume and logs a row per event; the exporter counts faults by kind.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "controller/dynamics/node_faults.h"
#include "controller/dynamics/timeline.h"
#include "controller/dynamics/timeline_log.h"
#include "controller/lab/applier.h"
#include "controller/lab/plan.h"
#include "controller/lab/planner.h"
#include "controller/observe/link_metrics.h"
#include "controller/options/workload_settings.h"
#include "controller/topology/diagnostics.h"
#include "controller/topology/node_events.h"
#include "netns/fake_kernel.h"
#include "validation_errors.h"

namespace testbed {
namespace {

const std::string kLinks = "links:\n  - {endpoints: [a, b], bandwidth: 10mbit}\n";

Topology parse(const std::string& a_node) {
  return parse_profile_text("lab: nf\nnodes:\n  a: " + a_node + "\n  b: {}\n" + kLinks, "n.yaml");
}

std::vector<std::string> errors_of(const std::string& a_node) {
  return validation_errors([&] { parse(a_node); });
}

TEST(NodeEvents, AScheduleIsReadInTimeOrderAndEachPauseEndsWithItsResume) {
  const Topology t =
      parse("{schedule: [{at: 60s, event: pause, for: 5s}, {at: 30s, event: crash}]}");
  ASSERT_EQ(t.nodes[0].schedule.size(), 2u);
  EXPECT_EQ(t.nodes[0].schedule[0].kind, NodeEvent::Kind::kCrash);
  EXPECT_EQ(t.nodes[0].schedule[0].at_us, 30'000'000);
  EXPECT_EQ(t.nodes[0].schedule[1].for_us, 5'000'000);
  const auto changes = node_changes(t.nodes[0].schedule);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[2].kind, NodeEvent::Kind::kResume);
  EXPECT_EQ(changes[2].at_us, 65'000'000);
  // Through the plan as the timeline reads it back; a schedule starts a timeline.
  const Plan plan = make_plan(t, false);
  EXPECT_TRUE(plan.has_schedules);
  const auto live = live_node_schedules(plan_from_json(plan_to_json(plan)));
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].node, "a");
  EXPECT_EQ(live[0].changes.size(), 3u);
  EXPECT_FALSE(make_plan(parse("{}"), false).has_schedules);
}

TEST(NodeEvents, BadSchedulesAreRefusedWhereTheyAreWritten) {
  EXPECT_EQ(
      errors_of("{schedule: [{at: 10s, event: explode}]}"),
      std::vector<std::string>{
          "n.yaml:3:35: node 'a' schedule: event: expected crash, pause, restart, cpus, leave or "
          "join, not 'explode'"});
  // A leave drains a member of an elastic run: one of a node not in (it left, or crashed,
  // and no restart since) is refused where it is written.
  EXPECT_TRUE(errors_of("{schedule: [{at: 10s, event: leave}]}").empty());
  EXPECT_EQ(errors_of("{schedule: [{at: 10s, event: leave}, {at: 20s, event: leave}]}"),
            std::vector<std::string>{"n.yaml:3:43: node 'a' schedule: a leave at 20s of a node "
                                     "not in: it left at 10s"});
  EXPECT_EQ(errors_of("{schedule: [{at: 30s, event: leave}, {at: 10s, event: crash}]}"),
            std::vector<std::string>{"n.yaml:3:18: node 'a' schedule: a leave at 30s of a node "
                                     "not in: it crashed at 10s"});
  EXPECT_TRUE(errors_of("{schedule: [{at: 5s, event: crash}, {at: 6s, event: restart}, "
                        "{at: 7s, event: leave}]}")
                  .empty());
  // A join brings in a node that is out: one whose first leave, join or crash is the join
  // (it starts outside), or one that left; not one already in, nor one that crashed.
  EXPECT_TRUE(errors_of("{schedule: [{at: 10s, event: join}, {at: 20s, event: leave}, "
                        "{at: 30s, event: join}]}")
                  .empty());
  EXPECT_EQ(errors_of("{schedule: [{at: 10s, event: leave}, {at: 20s, event: join}, "
                      "{at: 30s, event: join}]}"),
            std::vector<std::string>{
                "n.yaml:3:67: node 'a' schedule: a join at 30s of a node already in"});
  EXPECT_EQ(errors_of("{schedule: [{at: 10s, event: crash}, {at: 20s, event: join}]}"),
            std::vector<std::string>{"n.yaml:3:43: node 'a' schedule: a join at 20s of a node "
                                     "that crashed at 10s: its agent is gone (restart is for "
                                     "launched ranks)"});
  EXPECT_EQ(errors_of("{schedule: [{at: 10s, event: pause}]}"),
            std::vector<std::string>{"n.yaml:3:18: node 'a' schedule: a pause needs its length, "
                                     "e.g. {at: 60s, event: pause, for: 5s}"});
  EXPECT_EQ(errors_of("{schedule: [{at: 10s, event: crash, for: 5s}]}"),
            std::vector<std::string>{
                "n.yaml:3:47: node 'a' schedule: for: only a pause lasts (a crash or a restart is "
                "over at once)"});
  // A restart needs a crash before it, and a second restart another crash between.
  EXPECT_EQ(errors_of("{schedule: [{at: 10s, event: restart}, {at: 20s, event: crash}]}"),
            std::vector<std::string>{"n.yaml:3:18: node 'a' schedule: a restart at 10s has "
                                     "nothing to restart: no crash of the node before it"});
  EXPECT_EQ(errors_of("{schedule: [{at: 5s, event: crash}, {at: 6s, event: restart}, "
                      "{at: 7s, event: restart}]}"),
            std::vector<std::string>{"n.yaml:3:68: node 'a' schedule: a restart at 7s has "
                                     "nothing to restart: no crash of the node before it"});
  EXPECT_TRUE(errors_of("{schedule: [{at: 6s, event: restart}, {at: 5s, event: crash}, "
                        "{at: 8s, event: crash}, {at: 9s, event: restart}]}")
                  .empty());
  EXPECT_EQ(errors_of("{schedule: [{at: 0s, event: crash}]}"),
            std::vector<std::string>{"n.yaml:3:23: node 'a' schedule: at: must be after the start "
                                     "(a lab comes up whole)"});
  EXPECT_EQ(errors_of("{schedule: [{at: 10s, event: resume}]}"),
            std::vector<std::string>{"n.yaml:3:35: node 'a' schedule: event: resume is for "
                                     "`testbed node resume`; give the pause its `for`"});
  EXPECT_EQ(
      errors_of(
          "{schedule: [{at: 10s, event: pause, for: 10s}, {at: 15s, event: pause, for: 1s}]}"),
      std::vector<std::string>{"n.yaml:3:53: node 'a' schedule: a pause at 15s overlaps the one "
                               "before it (paused until 20s)"});
  EXPECT_EQ(errors_of("{schedule: [{at: 10s, event: crash, why: x}]}"),
            std::vector<std::string>{
                "n.yaml:3:42: node 'a' schedule: unknown key 'why' (at, event, for, cpus)"});
  EXPECT_EQ(errors_of("{colour: red}"),
            std::vector<std::string>{"n.yaml:3:7: unknown key 'colour' in node 'a'"});
}

struct RecordingSignaller : ProcessSignaller {
  std::vector<std::pair<int, int>> sent;  // (pid, signal)
  bool signal(const ProcessRecord& p, int sig) override {
    sent.emplace_back(p.group ? -p.pid : p.pid, sig);
    return p.pid != 999;  // 999: exited since it was recorded
  }
};

LabState three_kinds_of_process() {
  LabState s;
  s.lab = "nf";
  s.processes = {
      {100, 1, "a", {"tb-delayline"}},                 // the lab's own: never a node's fault
      {200, 1, "a", {"testbed-agent"}, false, 42, 7},  // a train's agent in a
      {300, 1, "a", {"python3"}, true, 43, 8},         // a launched rank: its whole group
      {400, 1, "b", {"testbed-agent"}, false, 42, 7},  // b's
      {999, 1, "a", {"sleep"}, false, 44, 9},          // gone since
  };
  return s;
}

TEST(NodeFaults, OnlyTheNodesJobProcessesAreSignalled) {
  const LabState s = three_kinds_of_process();
  RecordingSignaller sig;
  const auto crash = apply_node_fault(s, "a", NodeEvent::Kind::kCrash, sig);
  EXPECT_EQ(crash.processes, 2);  // 999 was not ours any more
  EXPECT_EQ(sig.sent,
            (std::vector<std::pair<int, int>>{{200, SIGKILL}, {-300, SIGKILL}, {999, SIGKILL}}));
  sig.sent.clear();
  apply_node_fault(s, "b", NodeEvent::Kind::kPause, sig);
  apply_node_fault(s, "b", NodeEvent::Kind::kResume, sig);
  EXPECT_EQ(sig.sent, (std::vector<std::pair<int, int>>{{400, SIGSTOP}, {400, SIGCONT}}));
}

TEST(NodeFaults, TheRealSignallerLeavesAPidWhoseStartTimeDiffers) {
  // This test process, recorded with a start time it does not have: a reused pid.
  ProcessRecord p{getpid(), 1, "a", {"x"}, false, 1, 1};
  KillSignaller sig;
  EXPECT_FALSE(sig.signal(p, SIGCONT));
}

TEST(NodeFaults, StatesAreKeptPerNode) {
  const std::string dir = testing::TempDir() + "/tb-node-states";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  record_node_state(dir, {"a", NodeEvent::Kind::kPause, 2, {1, 2}}, 10.0);
  record_node_state(dir, {"b", NodeEvent::Kind::kCrash, 1, {3}}, 11.0);
  record_node_state(dir, {"a", NodeEvent::Kind::kResume, 2, {1, 2}}, 12.0);
  const auto states = read_node_states(dir);
  EXPECT_EQ(states["a"]["state"], "running");
  EXPECT_EQ(states["b"]["state"], "crashed");
  EXPECT_EQ(states["b"]["processes"], 1);
  std::filesystem::remove_all(dir);
}

TEST(NodeFaults, ACrashIsKeptThroughARestartWhichCountsAndNeedsLaunchedRanks) {
  const std::string dir = testing::TempDir() + "/tb-node-restarts";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  // A crash that killed an agent (200) and a launched rank (300).
  record_node_state(dir, {"a", NodeEvent::Kind::kCrash, 2, {200, 300}, 1}, 10.0);
  auto states = read_node_states(dir);
  EXPECT_EQ(states["a"]["crash"]["pids"], nlohmann::json({200, 300}));
  EXPECT_EQ(states["a"]["crash"]["restarts"], 0);
  EXPECT_EQ(restartable_ranks(states, "a"), 1);
  EXPECT_EQ(restartable_ranks(states, "b"), 0);  // no event at all
  record_node_state(dir, {"a", NodeEvent::Kind::kRestart, 1, {}, 1}, 11.0);
  states = read_node_states(dir);
  EXPECT_EQ(states["a"]["state"], "running");
  EXPECT_EQ(states["a"]["restarts"], 1);
  // The crash stays (a launch that notices its rank's death late still finds it), but a
  // second restart has nothing to run: the last event is not a crash.
  EXPECT_EQ(states["a"]["crash"]["pids"], nlohmann::json({200, 300}));
  EXPECT_EQ(restartable_ranks(states, "a"), 0);
  // A crash of a train's agents only: nothing a restart could run.
  record_node_state(dir, {"b", NodeEvent::Kind::kCrash, 1, {400}, 0}, 12.0);
  EXPECT_EQ(restartable_ranks(read_node_states(dir), "b"), 0);
  std::filesystem::remove_all(dir);
}

TEST(NodeFaults, ACrashedNodeRunsAgainOnceItHasNewProcesses) {
  LabState s = three_kinds_of_process();
  s.plan.nodes = {{.name = "a"}, {.name = "b"}};
  const nlohmann::json recorded = {{"a", {{"state", "crashed"}, {"pids", {200, 300}}}},
                                   {"b", {{"state", "paused"}, {"pids", {400}}}}};
  // Nothing alive that the events did not touch: the states stand.
  const auto none_new = node_states_now(s, recorded, [](const ProcessRecord& p) {
    return p.pid == 400;  // b's paused agent lives; a's are dead
  });
  EXPECT_EQ(none_new.at("a"), "crashed");
  EXPECT_EQ(none_new.at("b"), "paused");
  // A new train's agent in a: a runs again.
  s.processes.push_back({500, 1, "a", {"testbed-agent"}, false, 45, 10});
  const auto restarted =
      node_states_now(s, recorded, [](const ProcessRecord& p) { return p.pid >= 400; });
  EXPECT_EQ(restarted.at("a"), "running");
  EXPECT_EQ(restarted.at("b"), "paused");
  // b's paused agent ended (its run is over): nothing of b is stopped any more.
  const auto ended =
      node_states_now(s, recorded, [](const ProcessRecord& p) { return p.pid == 500; });
  EXPECT_EQ(ended.at("b"), "running");
  EXPECT_EQ(ended.at("a"), "running");
}

struct NoDelayLines : DelayLineControl {
  void set_delay(const std::string&, uint16_t, int64_t, int64_t) override {}
};

struct RecordingFaulter : NodeFaulter {
  std::vector<std::pair<std::string, NodeEvent::Kind>> applied;
  NodeFaultResult apply(const std::string& node, NodeEvent::Kind kind) override {
    applied.emplace_back(node, kind);
    return {node, kind, 1, {}};
  }
};

TEST(NodeFaults, TheTimelineAppliesANodesScheduleAndLogsEachEvent) {
  const Topology t = parse(
      "{schedule: [{at: 50ms, event: pause, for: 100ms}, {at: 200ms, event: crash}, "
      "{at: 250ms, event: restart}]}");
  const Plan plan = make_plan(t, false);
  FakeKernel kernel;
  Applier(kernel).apply(plan);
  NoDelayLines lines;
  LinkChanger changer(kernel, lines, ImpairmentBackend::kDelayLine);
  const std::string dir = testing::TempDir() + "/tb-node-timeline";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::atomic<bool> stop{false};
  RecordingFaulter faulter;
  const Plan back = plan_from_json(plan_to_json(plan));
  Timeline(live_directions(back, CurrentLinks{}), changer, {1.0, dir, 0, {}}, stop,
           live_node_schedules(back), &faulter)
      .run();
  EXPECT_EQ(faulter.applied, (std::vector<std::pair<std::string, NodeEvent::Kind>>{
                                 {"a", NodeEvent::Kind::kPause},
                                 {"a", NodeEvent::Kind::kResume},
                                 {"a", NodeEvent::Kind::kCrash},
                                 {"a", NodeEvent::Kind::kRestart}}));
  std::ifstream csv(dir + "/timeline.csv");
  std::vector<std::string> rows;
  for (std::string line; std::getline(csv, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0] + "\n", kTimelineHeader);
  EXPECT_EQ(rows[1].substr(0, 9), "0.050000,");
  EXPECT_NE(rows[1].find(",,a,,,,,\"\",paused"), std::string::npos) << rows[1];
  EXPECT_NE(rows[3].find(",,a,,,,,\"\",crashed"), std::string::npos) << rows[3];
  EXPECT_NE(rows[4].find(",,a,,,,,\"\",restarted"), std::string::npos) << rows[4];
  // The exporter's count of faults, from the same rows.
  TimelineTail tail(dir + "/timeline.csv");
  tail.poll();
  EXPECT_EQ(tail.fault_events().at("node_pause"), 1u);
  EXPECT_EQ(tail.fault_events().at("node_resume"), 1u);
  EXPECT_EQ(tail.fault_events().at("node_crash"), 1u);
  EXPECT_EQ(tail.fault_events().at("node_restart"), 1u);
  std::filesystem::remove_all(dir);
}

TEST(NodeFaults, LinkFaultsAreCountedWhenADirectionsStateChanges) {
  TimelineTail tail("");
  const std::string rate = "1.0,1.0,0.1,0,a,b,1000,0,0,\"\",up";  // a rate change: no fault
  tail.add_line(rate);
  tail.add_line("2.0,2.0,0.1,0,a,b,1000,0,0,\"\",down");
  tail.add_line("3.0,3.0,0.1,0,a,b,500,0,0,\"\",down");  // a change while down
  tail.add_line("4.0,4.0,0.1,0,a,b,500,0,0,\"\",up");
  tail.add_line("5.0,5.0,0.1,0,a,b,500,0,0,\"refused\",down");  // failed: not applied
  EXPECT_EQ(tail.fault_events().at("link_down"), 1u);
  EXPECT_EQ(tail.fault_events().at("link_up"), 1u);
  const auto families = fault_families("nf", {{{"a", "paused"}}, tail.fault_events()});
  ASSERT_EQ(families.size(), 2u);
  EXPECT_EQ(families[0].name, "testbed_node_state");
  ASSERT_EQ(families[0].metric.size(), 3u);  // running, paused, crashed
  EXPECT_EQ(families[0].metric[1].gauge.value, 1.0);
  EXPECT_EQ(families[0].metric[0].gauge.value, 0.0);
  EXPECT_EQ(families[1].metric[0].counter.value, 1.0);  // link_down
}

}  // namespace
}  // namespace testbed
