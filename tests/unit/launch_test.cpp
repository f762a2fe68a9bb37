// `testbed launch` without root: who gets which rank and environment, what placeholders
// become, what a job's metric lines are worth, and what a node's hosts file says.
#include <gtest/gtest.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>

#include "controller/lab/lab_state.h"
#include "controller/lab/node_hosts.h"
#include "controller/lab/planner.h"
#include "controller/launch/job_metrics.h"
#include "controller/launch/launch_plan.h"
#include "controller/launch/launch_report.h"
#include "controller/observe/train_metrics.h"
#include "controller/options/workload_settings.h"
#include "controller/scenario/scenario.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

Plan lab_plan() {
  Plan plan;
  for (const auto& [name, address] :
       {std::pair{"seattle", "198.18.0.1"}, std::pair{"chicago", "198.18.0.2"},
        std::pair{"houston", "198.18.0.3"}}) {
    plan.nodes.push_back({.name = name,
                          .ns = std::string("tb-i2-") + name,
                          .address = *Ipv4Address::parse(address)});
  }
  return plan;
}

LaunchRequest request(std::vector<std::string> command, std::string nodes = "all") {
  LaunchRequest r;
  r.lab = "i2";
  r.nodes = std::move(nodes);
  r.command = std::move(command);
  r.job = "train";
  r.run_dir = "/run/testbed/i2/launches/x";
  return r;
}

std::string env_of(const RankPlan& r, const std::string& name) {
  for (const auto& kv : r.env)
    if (kv.rfind(name + "=", 0) == 0) return kv.substr(name.size() + 1);
  return "<unset>";
}

TEST(LaunchPlan, RanksFollowTheProfileOrderAndCarryTorchrunsEnvironment) {
  const auto ranks = plan_launch(lab_plan(), request({"python3", "job.py"}));
  ASSERT_EQ(ranks.size(), 3u);
  EXPECT_EQ(ranks[0].node, "seattle");
  EXPECT_EQ(ranks[2].node, "houston");
  EXPECT_EQ(ranks[2].ns, "tb-i2-houston");
  for (const auto& r : ranks) {
    EXPECT_EQ(env_of(r, "RANK"), std::to_string(r.rank));
    EXPECT_EQ(env_of(r, "WORLD_SIZE"), "3");
    EXPECT_EQ(env_of(r, "LOCAL_RANK"), "0");
    EXPECT_EQ(env_of(r, "LOCAL_WORLD_SIZE"), "1");
    EXPECT_EQ(env_of(r, "MASTER_ADDR"), "198.18.0.1");  // the first chosen node's
    EXPECT_EQ(env_of(r, "MASTER_PORT"), "29500");
    EXPECT_EQ(env_of(r, "TESTBED_LAB"), "i2");
    EXPECT_EQ(env_of(r, "TESTBED_NODE"), r.node);
    EXPECT_EQ(env_of(r, "TESTBED_RUN_DIR"), "/run/testbed/i2/launches/x");
    EXPECT_EQ(env_of(r, "TESTBED_METRICS"), r.metrics_path);
    EXPECT_EQ(r.metrics_path, "/run/testbed/i2/launches/x/" + r.node + ".metrics.jsonl");
  }
}

TEST(LaunchPlan, NodesOptionChoosesAndOrdersTheRanks) {
  const auto ranks = plan_launch(lab_plan(), request({"job"}, "houston,seattle"));
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].node, "houston");
  EXPECT_EQ(env_of(ranks[1], "RANK"), "1");
  EXPECT_EQ(env_of(ranks[1], "MASTER_ADDR"), "198.18.0.3");
  EXPECT_EQ(env_of(ranks[1], "WORLD_SIZE"), "2");
}

TEST(LaunchPlan, BadInputIsRefusedNamingWhat) {
  const auto refused = [](const LaunchRequest& r, const std::string& says) {
    try {
      plan_launch(lab_plan(), r);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const LaunchInputError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused(request({}), "no command");
  refused(request({""}), "no command");
  refused(request({"job"}, "seattle,denver"), "no node 'denver'");
  refused(request({"job"}, "seattle,seattle"), "named twice");
  refused(request({"job"}, "seattle,"), "empty name");
  refused(request({"job", "--peer={addr:denver}"}), "no node 'denver'");
  auto port = request({"job"});
  port.master_port = 70000;
  refused(port, "--master-port");
}

TEST(LaunchPlan, PlaceholdersAreReplacedAndOtherBracesKept) {
  const auto plan = lab_plan();
  EXPECT_EQ(substitute_placeholders("--name={node}-{rank}", 2, "houston", plan),
            "--name=houston-2");
  EXPECT_EQ(substitute_placeholders("tcp://{addr:chicago}:7000", 0, "seattle", plan),
            "tcp://198.18.0.2:7000");
  EXPECT_EQ(substitute_placeholders("print({'a': 1}) {} {", 0, "seattle", plan),
            "print({'a': 1}) {} {");
  const auto ranks = plan_launch(plan, request({"job", "{rank}", "{addr:houston}"}));
  EXPECT_EQ(ranks[1].argv, (std::vector<std::string>{"job", "1", "198.18.0.3"}));
}

TEST(LaunchPlan, DefaultJobNameIsTheScriptsForAnInterpreter) {
  EXPECT_EQ(default_job_name({"python3", "-u", "examples/ddp/train.py", "--x"}), "train");
  EXPECT_EQ(default_job_name({"/usr/bin/python3.11", "allreduce.py"}), "allreduce");
  EXPECT_EQ(default_job_name({"python3", "-c", "print(1)"}), "python3");
  EXPECT_EQ(default_job_name({"/opt/bin/my job"}), "my_job");
  EXPECT_EQ(default_job_name({"iperf3", "-s"}), "iperf3");
}

TEST(LaunchPlan, EnvironmentOverridesReplaceAndKeepTheRest) {
  const auto env = merge_environment({"PATH=/bin", "RANK=9", "HOME=/root"}, {"RANK=0", "X=1"});
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/bin", "RANK=0", "HOME=/root", "X=1"}));
}

TEST(JobMetrics, ParsesKnownFieldsAndKeepsOtherNumbersAsGauges) {
  std::string why;
  const auto m = parse_metric_line(
      R"({"iteration": 3, "loss": 0.5, "samples": 64, "lr": 0.1, "tag": "x"})", why);
  ASSERT_TRUE(m) << why;
  EXPECT_EQ(*m->iteration, 3u);
  EXPECT_DOUBLE_EQ(*m->loss, 0.5);
  EXPECT_DOUBLE_EQ(*m->samples, 64);
  EXPECT_EQ(m->gauges, (std::map<std::string, double>{{"lr", 0.1}}));  // strings ignored
}

TEST(JobMetrics, MalformedLinesAreRefusedWithAReason) {
  for (const std::string& line : std::vector<std::string>{
           "not json", "[1, 2]", R"({"iteration": -1})", R"({"iteration": 1.5})",
           R"({"iteration": "3"})", R"({"loss": "low"})", R"({"seconds": -2})",
           R"({"samples": -1})", R"({"bad name!": 1})", std::string(kMaxMetricsLine + 1, ' ')}) {
    std::string why;
    EXPECT_FALSE(parse_metric_line(line, why)) << line.substr(0, 40);
    EXPECT_FALSE(why.empty()) << line.substr(0, 40);
  }
}

TEST(JobMetrics, IterationTimesLossCurveAndTimeToTarget) {
  JobMetrics jm({"a", "b"});
  // a reports at 1.0, 2.5 and 4.0 s; its second line gives its own duration.
  EXPECT_EQ(jm.add(0, R"({"iteration": 0, "samples": 10})", 1.0, "j").size(), 1u);
  jm.add(0, R"({"iteration": 1, "seconds": 1.2, "samples": 10, "loss": 0.8})", 2.5, "j");
  EXPECT_TRUE(jm.add(1, "garbage", 2.6, "j").empty());
  jm.add(1, R"({"loss": 0.6})", 3.0, "j");
  jm.add(0, R"({"iteration": 2, "loss": 0.4})", 4.0, "j");
  const auto s = jm.summary(0.55);
  const auto& a = s["nodes"][0];
  EXPECT_EQ(a["iterations"], 3);
  EXPECT_EQ(a["last_iteration"], 2);
  const auto times = a["iteration_times_s"].get<std::vector<double>>();
  ASSERT_EQ(times.size(), 3u);
  EXPECT_DOUBLE_EQ(times[0], 1.0);  // since the launch
  EXPECT_DOUBLE_EQ(times[1], 1.2);  // its own 'seconds'
  EXPECT_DOUBLE_EQ(times[2], 1.5);  // since the previous iteration line
  EXPECT_EQ(s["nodes"][1]["malformed_lines"], 1);
  EXPECT_EQ(s["metric_lines"]["malformed"], 1);
  EXPECT_EQ(s["metric_lines"]["accepted"], 4);
  // The curve starts once both nodes reported a loss: (0.8 + 0.6) / 2 at 3.0 s, then
  // (0.4 + 0.6) / 2 at 4.0 s.
  const auto curve = s["loss_curve"];
  ASSERT_EQ(curve.size(), 2u);
  EXPECT_DOUBLE_EQ(curve[0][0].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(curve[0][1].get<double>(), 0.7);
  EXPECT_DOUBLE_EQ(s["final_loss"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s["time_to_target_s"].get<double>(), 4.0);
  EXPECT_TRUE(jm.summary(0.1)["time_to_target_s"].is_null());
  // The run's iteration i is its slowest node's i-th: b reported none.
  EXPECT_EQ(s["iteration_s"], (std::vector<double>{1.0, 1.2, 1.5}));
  EXPECT_DOUBLE_EQ(s["mean_iteration_s"].get<double>(), 3.7 / 3);
  EXPECT_DOUBLE_EQ(s["samples_per_s"].get<double>(), 20 / 3.7);
}

TEST(JobMetrics, ALossFromOneRankAloneMakesTheCurve) {
  JobMetrics jm({"a", "b", "c"});
  jm.add(0, R"({"iteration": 0, "loss": 2.0})", 1.0, "j");
  jm.add(1, R"({"iteration": 0})", 1.0, "j");
  const auto s = jm.summary(std::nullopt);
  EXPECT_EQ(s["loss_reporting_nodes"], 1);
  EXPECT_DOUBLE_EQ(s["final_loss"].get<double>(), 2.0);
  EXPECT_TRUE(s["time_to_target_s"].is_null());  // present, as in built-in runs
}

TEST(JobMetrics, EventsReachThePrometheusFamiliesTheDashboardsRead) {
  prometheus::Registry registry;
  TrainMetrics m(registry, "lab1");
  JobMetrics jm({"seattle"});
  for (const auto& e :
       jm.add(0, R"({"iteration": 0, "seconds": 2, "samples": 8, "loss": 0.3, "acc": 0.9})", 2.0,
              "ddp"))
    m.apply(e);
  const std::string text = prometheus::TextSerializer().Serialize(registry.Collect());
  for (const std::string line :
       {R"(testbed_iterations_total{lab="lab1",node="seattle",strategy="ddp"} 1)",
        R"(testbed_iteration_duration_seconds_count{lab="lab1",node="seattle",strategy="ddp"} 1)",
        R"(testbed_held_out_loss{lab="lab1",node="seattle",strategy="ddp"} 0.3)",
        R"(testbed_samples_per_second{lab="lab1",node="seattle",strategy="ddp"} 4)",
        R"(testbed_job_value{lab="lab1",name="acc",node="seattle",strategy="ddp"} 0.9)"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
}

TEST(LaunchReport, AFailureNamesTheNodeItsStatusAndItsLastWords) {
  const auto ranks = plan_launch(lab_plan(), request({"job"}));
  JobOutcome o;
  o.status = "failed";
  o.failed_rank = 1;
  o.ranks = {{100, 143, true, 2.0, {}, {}, 0, false},
             {101, 3, false, 1.5, {"Traceback", "boom"}, {}, 0, false},
             {102, 143, true, 2.0, {}, {}, 0, false}};
  const auto lines = failure_lines(ranks, o, 0);
  ASSERT_GE(lines.size(), 4u);
  EXPECT_EQ(lines[0], "node chicago (rank 1) exited with status 3 after 1.5 s");
  EXPECT_NE(std::find(lines.begin(), lines.end(), "  boom"), lines.end());
  EXPECT_NE(lines.back().find("stopped the other 2 node(s)"), std::string::npos);
  EXPECT_EQ(describe_status(128 + 9).rfind("signal 9", 0), 0u);

  JobMetrics jm({"seattle", "chicago", "houston"});
  const auto s = launch_summary(request({"job"}), ranks, o, jm.summary(std::nullopt),
                                {{"seattle>chicago", 100}, {"chicago>seattle", 50}});
  EXPECT_EQ(s["kind"], "launch");
  EXPECT_EQ(s["failed_node"], "chicago");
  EXPECT_EQ(s["nodes"][1]["exit_status"], 3);
  EXPECT_EQ(s["nodes"][1]["address"], "198.18.0.2");
  EXPECT_EQ(s["wan_bytes"], 150);
  EXPECT_TRUE(s.contains("choices"));
  EXPECT_TRUE(failure_lines(ranks, JobOutcome{"completed", -1, 1.0, o.ranks}, 0).empty());

  // A rank a crash killed and nothing restarted is named as a crash, not by its signal.
  o.ranks[1] = {101, 137, false, 1.5, {}, {}, 1, true};
  EXPECT_EQ(failure_lines(ranks, o, 0)[0],
            "node chicago (rank 1) was crashed by a fault of the node after 1.5 s and not "
            "restarted before the others ended");
  o.ranks[1] = {103, 0, false, 4.0, {}, {101}, 1, false};  // crashed, restarted, completed
  const auto restarted = launch_summary(request({"job"}), ranks, o, jm.summary(std::nullopt), {});
  EXPECT_EQ(restarted["nodes"][1]["crashes"], 1);
  EXPECT_EQ(restarted["nodes"][1]["restarts"], 1);
  EXPECT_EQ(restarted["nodes"][1]["pid"], 103);
}

TEST(NodeHosts, EveryNodeNameResolvesToItsAddress) {
  const Plan plan = make_plan(parse_profile_file(TESTBED_PROFILES_DIR + "/internet2.yaml"), false);
  const std::string text = node_hosts_text(plan);
  EXPECT_NE(text.find("127.0.0.1\tlocalhost\n"), std::string::npos);
  for (const auto& n : plan.nodes) {
    const std::string line = n.address.str() + "\t" + n.name + " " + n.name + "." + plan.lab + "\n";
    EXPECT_NE(text.find(line), std::string::npos) << line;
  }
}

TEST(NodeHosts, IdentitiesAndProcessGroupsSurviveTheStateFile) {
  LabState s;
  s.lab = "x";
  s.phase = "up";
  s.identities = {{"a", "tb-x-a", 4026532001}, {"b", "tb-x-b", 0}};
  s.processes = {{12, 34, "a", {"python3"}, /*group=*/true}};
  const LabState back = state_from_json(state_to_json(s));
  ASSERT_EQ(back.identities.size(), 2u);
  EXPECT_EQ(back.identities[0].ns, "tb-x-a");
  EXPECT_EQ(back.identities[0].uts_inode, 4026532001u);
  EXPECT_TRUE(back.processes[0].group);
  // A state file from before identities loads with none.
  nlohmann::json old = state_to_json(s);
  old.erase("identities");
  EXPECT_TRUE(state_from_json(old).identities.empty());
}

constexpr const char* kJobScenario = R"(name: mine
topology: internet2.yaml
strategies:
  - netstorm-pro
  - {name: ddp, command: [python3, "{scenario_dir}/train.py", --steps, 5], nodes: "seattle,chicago", target-loss: 0.5}
expect:
  - time_to_loss(ddp) <= 60
  - ddp / netstorm-pro >= 0.5
)";

TEST(LaunchScenario, ALaunchedJobStandsBesideTheBuiltInStrategies) {
  const Scenario s = parse_scenario_text(kJobScenario, "mine.yaml");
  EXPECT_EQ(s.strategies, (std::vector<std::string>{"netstorm-pro", "ddp"}));
  ASSERT_EQ(s.jobs.count("ddp"), 1u);
  const auto& job = s.jobs.at("ddp");
  EXPECT_EQ(job.command,
            (std::vector<std::string>{"python3", "{scenario_dir}/train.py", "--steps", "5"}));
  EXPECT_EQ(job.nodes, "seattle,chicago");
  EXPECT_EQ(job.options.at("target-loss"), "0.5");
  EXPECT_EQ(s.jobs.count("netstorm-pro"), 0u);
}

TEST(LaunchScenario, ABadLaunchedJobIsRefusedAtItsLine) {
  const auto refused = [](const std::string& entry, const std::string& says) {
    const std::string text = "name: mine\ntopology: internet2.yaml\nstrategies:\n  - " + entry +
                             "\nexpect: [no node failed]\n";
    try {
      parse_scenario_text(text, "mine.yaml");
      ADD_FAILURE() << "accepted: " << entry;
    } catch (const ValidationError& e) {
      EXPECT_NE(std::string(e.what()).find("mine.yaml:4:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("{name: ddp, command: []}", "non-empty list");
  refused("{name: ddp, command: [python3], model: mf}", "model");
  refused("{name: ddp, command: [python3], target-loss: soon}", "target-loss");
  refused("{command: [python3]}", "needs a name");
}

}  // namespace
}  // namespace testbed

namespace testbed {
namespace {

// concurrent: true runs the strategies side by side (docs/jobs.md): one train beside any
// number of launched jobs; two trains, or a variant with a lab of its own, refused at the
// key's line.
TEST(LaunchScenario, ConcurrentJobsShareOneLabWithOneTrainAtMost) {
  const Scenario s =
      parse_scenario_text(std::string(kJobScenario) + "concurrent: true\n", "mine.yaml");
  EXPECT_TRUE(s.concurrent);
  EXPECT_FALSE(parse_scenario_text(kJobScenario, "mine.yaml").concurrent);
  const auto refused = [](const std::string& strategies, const std::string& says) {
    const std::string text = "name: mine\ntopology: internet2.yaml\nstrategies:\n" + strategies +
                             "concurrent: true\nexpect: [no node failed]\n";
    try {
      parse_scenario_text(text, "mine.yaml");
      ADD_FAILURE() << "accepted: " << strategies;
    } catch (const ValidationError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("concurrent"), std::string::npos) << e.what();
    }
  };
  refused("  - bsp\n  - ssp\n", "one `train` per lab");
  refused("  - bsp\n  - {name: other, strategy: async, topology: internet2.yaml}\n",
          "topology of its own");
  try {
    parse_scenario_text(std::string(kJobScenario) + "concurrent: sometimes\n", "mine.yaml");
    ADD_FAILURE();
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("mine.yaml:9:13: concurrent: expected true or false"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace testbed
