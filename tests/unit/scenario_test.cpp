// Scenarios: strict parsing, events written into the topology as schedule steps, the
// verdicts on expectations, and JUnit output.
#include "controller/scenario/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "controller/options/workload_settings.h"
#include "controller/scenario/junit.h"
#include "tests/support/source_paths.h"

namespace testbed {
namespace {

const char* kGood = R"(
name: demo
topology: {lab: x, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}, c: {}},
           links: [{endpoints: [a, b]}, {endpoints: [c, b], b2a: {bandwidth: 50mbit}}]}
dynamics:
  time_scale: 0.5
  events:
    - {at: 20s, link: [b, c], dir: a2b, bandwidth: 5mbit}
    - {at: 10s, link: [a, b], loss: 1%}
workload: {model: resnet50, scale: 0.01, iterations: 3}
strategies: [ps, netstorm-pro]
repetitions: 2
expect:
  - netstorm-pro / ps >= 2
  - mean_iteration_s(ps) < 10
  - no node failed
)";

TEST(Scenario, ParsesEverySection) {
  const Scenario s = parse_scenario_text(kGood, "demo.yaml");
  EXPECT_EQ(s.name, "demo");
  EXPECT_FALSE(s.topology_inline.empty());
  EXPECT_DOUBLE_EQ(s.time_scale, 0.5);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_DOUBLE_EQ(s.events[0].at_s, 20);
  EXPECT_EQ(s.events[0].direction, "a2b");
  EXPECT_EQ(s.workload.at("iterations"), "3");
  EXPECT_EQ(s.strategies, (std::vector<std::string>{"ps", "netstorm-pro"}));
  EXPECT_EQ(s.repetitions, 2);
  ASSERT_EQ(s.expectations.size(), 3u);
  EXPECT_EQ(s.expectations[0].kind, Expectation::Kind::kRatio);
  EXPECT_EQ(s.expectations[1].metric, "mean_iteration_s");
  EXPECT_EQ(s.expectations[2].kind, Expectation::Kind::kNoNodeFailed);
}

TEST(Scenario, ReportsEveryErrorWithItsPosition) {
  try {
    parse_scenario_file(TESTBED_TEST_DATA + "/scenarios/bad.yaml");
    FAIL() << "accepted a bad scenario";
  } catch (const ValidationError& e) {
    std::vector<std::string> got;
    for (const auto& d : e.diagnostics())
      got.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message);
    const std::vector<std::string> expected = {
        "1:7: name: 'Bad_Name' must be 1-32 characters of a-z, 0-9 and '-'",
        "2:11: topology: 'no-such-profile.yaml' is not a file, nor in",
        "4:15: time_scale: expected a number greater than 0, not 'fast'",
        "6:12: at: 'soon' is not a number followed by a unit",
        "6:24: link: expected two node names, e.g. [chicago, kansascity]",
        "6:40: bandwidth: unit 'mbps' is ambiguous",
        "7:19: workload.scale: expected a positive number",
        "7:22: unknown key 'strategy' in workload (strategies go under 'strategies')",
        "8:18: strategy 'ps' is listed twice",
        "8:22: unknown strategy 'star'",
        "9:14: repetitions: expected a whole number from 1 to 99",
        "11:5: expect: strategy 'netstorm' is not among the scenario's strategies",
        "12:5: expect: unknown figure 'speed'",
        "13:5: expect: 'ps beats everyone' is not 'A / B >= X'",
    };
    ASSERT_EQ(got.size(), expected.size()) << e.what();
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(got[i].rfind(expected[i], 0), 0u) << got[i] << "\n  expected " << expected[i];
  }
}

TEST(Scenario, EventsBecomeStepsOnTheirDirections) {
  const Scenario s = parse_scenario_text(kGood, "demo.yaml");
  const std::string derived = derive_topology(s, s.topology_inline, "sc-demo");
  const Topology t = parse_profile_text(derived, "derived.yaml");
  EXPECT_EQ(t.lab, "sc-demo");
  // Link c-b: the event's a2b (b sends to c) is the link's b2a.
  const Link& cb = t.links[1];
  EXPECT_TRUE(cb.a2b.schedule.changes.empty());
  ASSERT_EQ(cb.b2a.schedule.changes.size(), 1u);
  EXPECT_EQ(cb.b2a.schedule.changes[0].at_us, 20000000);
  EXPECT_EQ(cb.b2a.schedule.changes[0].rate->bits_per_s, 5000000u);
  EXPECT_EQ(cb.b2a.rate.bits_per_s, 50000000u);  // until then, as configured
  // Link a-b: both directions lose 1% from 10 s.
  for (const auto* d : {&t.links[0].a2b, &t.links[0].b2a}) {
    ASSERT_EQ(d->schedule.changes.size(), 1u);
    EXPECT_DOUBLE_EQ(d->schedule.changes[0].loss->value, 0.01);
  }
}

TEST(Scenario, FaultEventsCutLinksAndCrashOrPauseNodes) {
  const std::string text = R"(
name: faults
topology: {lab: x, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}, c: {}},
           links: [{endpoints: [a, b]}, {endpoints: [b, c]}]}
dynamics:
  events:
    - {at: 10s, link: [a, b], state: down}
    - {at: 15s, link: [a, b], state: up}
    - {at: 20s, node: c, event: pause, for: 5s}
    - {at: 30s, node: c, event: crash}
strategies: [bsp]
)";
  const Scenario s = parse_scenario_text(text, "faults.yaml");
  ASSERT_EQ(s.node_events.size(), 2u);
  const Topology t =
      parse_profile_text(derive_topology(s, s.topology_inline, "sc-faults"), "derived.yaml");
  for (const auto* d : {&t.links[0].a2b, &t.links[0].b2a}) {
    ASSERT_EQ(d->schedule.changes.size(), 2u);
    EXPECT_TRUE(*d->schedule.changes[0].down);
    EXPECT_FALSE(*d->schedule.changes[1].down);
  }
  ASSERT_EQ(t.nodes[2].schedule.size(), 2u);
  EXPECT_EQ(t.nodes[2].schedule[0].kind, NodeEvent::Kind::kPause);
  EXPECT_EQ(t.nodes[2].schedule[0].for_us, 5'000'000);
  EXPECT_EQ(t.nodes[2].schedule[1].kind, NodeEvent::Kind::kCrash);
  EXPECT_EQ(t.nodes[2].schedule[1].at_us, 30'000'000);
  // Refused: a state that is neither, an event that is neither, a node the topology lacks.
  const auto errors = [](const std::string& events) {
    try {
      parse_scenario_text(
          "name: f\ntopology: {lab: x, nodes: {a: {}}, links: []}\n"
          "dynamics:\n  events:\n" +
              events + "strategies: [bsp]\n",
          "f.yaml");
    } catch (const ValidationError& e) {
      return e.diagnostics().at(0).str();
    }
    return std::string();
  };
  EXPECT_EQ(errors("    - {at: 1s, link: [a, b], state: sideways}\n"),
            "f.yaml:5:37: state: 'sideways' must be down or up");
  EXPECT_EQ(errors("    - {at: 1s, node: a, event: explode}\n"),
            "f.yaml:5:32: event: expected crash, pause, restart, cpus, leave or join");
  Scenario missing = s;
  missing.events.clear();
  missing.node_events = {{5, "z", "crash", "", ""}};
  EXPECT_THROW(derive_topology(missing, s.topology_inline, "sc-faults"), ValidationError);
}

TEST(Scenario, RateScaleScalesEveryRateAndStep) {
  std::string text = kGood;
  text += "rate_scale: 0.05\n";
  const Scenario s = parse_scenario_text(text, "demo.yaml");
  EXPECT_DOUBLE_EQ(s.rate_scale, 0.05);
  const Topology t = parse_profile_text(derive_topology(s, s.topology_inline, "sc-demo"), "d");
  EXPECT_EQ(t.links[0].a2b.rate.bits_per_s, 5000000u);  // the default 100 Mbit/s
  EXPECT_EQ(t.links[1].b2a.rate.bits_per_s, 2500000u);  // its own 50 Mbit/s
  EXPECT_EQ(t.links[1].b2a.schedule.changes[0].rate->bits_per_s, 250000u);  // the event's 5
  // A random schedule's rates scale too, listed or as a range (MLfabric's N1-N3).
  const char* drawn = R"(
name: drawn
topology: {lab: x, nodes: {a: {}, b: {}}, links: [{endpoints: [a, b], a2b: {schedule:
           {random: {every: 5s, bandwidth: [10mbit, 100mbit], weights: [0.5, 0.5]}}},
           b2a: {schedule: {random: {every: 5s, bandwidth: 20mbit..100mbit, step: 10mbit}}}}]}
strategies: [ps]
rate_scale: 0.1
)";
  const Scenario r = parse_scenario_text(drawn, "drawn.yaml");
  const Topology u = parse_profile_text(derive_topology(r, r.topology_inline, "sc-drawn"), "d");
  ASSERT_EQ(u.links[0].a2b.schedule.choices.size(), 2u);
  EXPECT_EQ(u.links[0].a2b.schedule.choices[0].bits_per_s, 1000000u);
  EXPECT_EQ(u.links[0].a2b.schedule.choices[1].bits_per_s, 10000000u);
  EXPECT_EQ(u.links[0].b2a.schedule.min_rate.bits_per_s, 2000000u);
  EXPECT_EQ(u.links[0].b2a.schedule.max_rate.bits_per_s, 10000000u);
  EXPECT_EQ(u.links[0].b2a.schedule.step.bits_per_s, 1000000u);
  for (const char* bad : {"rate_scale: 0\n", "rate_scale: fast\n"})
    EXPECT_THROW(parse_scenario_text(std::string(kGood) + bad, "demo.yaml"), ValidationError)
        << bad;
}

TEST(Scenario, FitIsAModeOrAFactorAndAnythingElseIsNamed) {
  for (const char* good : {"scale", "refuse", "off", "0.05", "1"}) {
    const Scenario s = parse_scenario_text(std::string(kGood) + "fit: " + good + "\n", "d.yaml");
    EXPECT_EQ(s.fit, good);
  }
  EXPECT_EQ(parse_scenario_text(kGood, "d.yaml").fit, "");  // up's default
  for (const char* bad : {"squeeze", "0", "2", "0.001"}) {
    try {
      parse_scenario_text(std::string(kGood) + "fit: " + bad + "\n", "d.yaml");
      ADD_FAILURE() << bad << " passed";
    } catch (const ValidationError& e) {
      EXPECT_NE(std::string(e.what()).find("fit: expected scale, refuse, off or a factor"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Scenario, CrossTrafficJoinsTheTopologyAndCaptureIsRead) {
  const std::string text = std::string(kGood) +
                           "rate_scale: 0.5\n"
                           "cross_traffic:\n"
                           "  - {from: a, to: c, kind: udp, rate: 10mbit}\n"
                           "  - {from: c, to: a, kind: bulk, flows: 2}\n"
                           "capture: {snaplen: 96}\n";
  const Scenario s = parse_scenario_text(text, "demo.yaml");
  EXPECT_EQ(s.capture_snaplen, 96);
  const Topology t =
      parse_profile_text(derive_topology(s, s.topology_inline, "sc-demo"), "derived.yaml");
  ASSERT_EQ(t.cross_traffic.size(), 2u);
  // A UDP stream keeps its share of the scaled links: 10 Mbit/s at rate_scale 0.5.
  EXPECT_EQ(t.cross_traffic[0].rate.bits_per_s, 5000000u);
  EXPECT_EQ(t.cross_traffic[1].flows, 2);
  EXPECT_EQ(parse_scenario_text(std::string(kGood) + "capture: all\n", "d.yaml").capture_snaplen,
            128);
  EXPECT_FALSE(parse_scenario_text(kGood, "d.yaml").capture_snaplen);
  for (const char* bad : {"capture: some\n", "capture: {snaplen: 10}\n", "capture: {snap: 100}\n",
                          "cross_traffic: {from: a}\n"}) {
    EXPECT_THROW(parse_scenario_text(std::string(kGood) + bad, "demo.yaml"), ValidationError)
        << bad;
  }
  // An entry naming a node the topology lacks is refused when the topology is derived.
  const Scenario wrong = parse_scenario_text(
      std::string(kGood) + "cross_traffic: [{from: a, to: zz, kind: bulk}]\n", "demo.yaml");
  EXPECT_THROW(
      parse_profile_text(derive_topology(wrong, wrong.topology_inline, "sc-demo"), "derived.yaml"),
      ValidationError);
}

TEST(Scenario, PlacedStrategiesAreAcceptedAndBadOnesNamed) {
  std::string text = kGood;
  const auto at = text.find("strategies: [ps, netstorm-pro]");
  text.replace(at, 30, "strategies: [ps, netstorm-pro, apsp@*, ps@a, ps-random]");
  const Scenario s = parse_scenario_text(text, "demo.yaml");
  EXPECT_EQ(s.strategies.size(), 5u);
  std::string bad = kGood;
  bad.replace(bad.find("strategies: [ps, netstorm-pro]"), 30, "strategies: [ps, mst@a]");
  try {
    parse_scenario_text(bad, "demo.yaml");
    FAIL() << "mst@a accepted";
  } catch (const ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("take @NODE"), std::string::npos) << e.what();
  }
}

TEST(Scenario, VariantsAreStrategiesWithSettingsOfTheirOwn) {
  const Scenario s = parse_scenario_text(R"(
name: table2
topology: {lab: x, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}}, links: [{endpoints: [a, b]}]}
workload: {model: sparse-lr, index: "off"}
strategies:
  - drps
  - {name: drps+index, strategy: drps, index: "on"}
  - {name: wsp, strategy: drps, parallel: wsp, staleness: 2}
expect: [ 'time_to_loss(wsp) <= 1 * time_to_loss(drps+index)' ]
)",
                                         "table2.yaml");
  EXPECT_EQ(s.strategies, (std::vector<std::string>{"drps", "drps+index", "wsp"}));
  EXPECT_EQ(s.variants.at("drps+index").at("index"), "on");
  EXPECT_EQ(s.variants.at("wsp").at("parallel"), "wsp");
  EXPECT_FALSE(s.variants.contains("drps"));
  try {
    parse_scenario_text(R"(
name: bad
topology: {lab: x, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}}, links: [{endpoints: [a, b]}]}
strategies:
  - {name: w, strategy: drps, parallel: lazy}
  - {name: v, strategy: drps, epochs: 3}
  - {strategy: drps}
)",
                        "bad.yaml");
    FAIL() << "bad variants accepted";
  } catch (const ValidationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.yaml:5:41: parallel: expected bsp, ssp, async or wsp"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("bad.yaml:6:31: unknown key 'epochs'"), std::string::npos) << what;
    EXPECT_NE(what.find("needs a name and a strategy"), std::string::npos) << what;
  }
}

TEST(Scenario, AVariantMayRunALabOfItsOwn) {
  // Two profiles beside the scenario: the variant's topology is read relative to it.
  const auto dir = std::filesystem::temp_directory_path() / "tb-unit-variant-topology";
  std::filesystem::create_directories(dir);
  const char* profile =
      "lab: x\ndefaults: {bandwidth: 100mbit}\nnodes: {a: {}, b: {}}\nlinks: [{endpoints: [a, "
      "b]}]\n";
  for (const char* name : {"plain.yaml", "throttled.yaml"}) std::ofstream(dir / name) << profile;
  const Scenario s = parse_scenario_text(R"(
name: two-ways
topology: plain.yaml
strategies:
  - {name: ps-wait, strategy: ps}
  - {name: ps-cpu, strategy: ps, compute-as: cpu, topology: throttled.yaml}
)",
                                         (dir / "s.yaml").string());
  EXPECT_FALSE(s.variant_topologies.contains("ps-wait"));
  EXPECT_EQ(s.variant_topologies.at("ps-cpu"), (dir / "throttled.yaml").string());
  EXPECT_EQ(s.variants.at("ps-cpu").at("compute-as"), "cpu");
  try {
    parse_scenario_text(R"(
name: bad
topology: plain.yaml
strategies:
  - {name: v, strategy: ps, topology: nowhere.yaml}
  - {name: w, strategy: ps, compute-as: gpu}
)",
                        (dir / "bad.yaml").string());
    FAIL() << "a missing variant topology accepted";
  } catch (const ValidationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.yaml:5:39: topology:"), std::string::npos) << what;
    EXPECT_NE(what.find("bad.yaml:6:41: compute-as: expected wait or cpu"), std::string::npos)
        << what;
  }
  std::filesystem::remove_all(dir);
}

TEST(Scenario, SeedsAreARepetitionEachAndReseedTheLab) {
  const std::string base = R"(
name: seeded
topology: {lab: x, seed: 5, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}},
           links: [{endpoints: [a, b]}]}
strategies: [ps]
)";
  const Scenario s = parse_scenario_text(base + "seeds: [1, 2, 7]\n", "s.yaml");
  EXPECT_EQ(s.repetitions, 3);
  EXPECT_EQ(s.seeds, (std::vector<uint64_t>{1, 2, 7}));
  // Each seed's lab draws its own network; without one, the profile's seed stays.
  EXPECT_EQ(parse_profile_text(derive_topology(s, s.topology_inline, "sc-x", 7), "d").seed, 7u);
  EXPECT_EQ(parse_profile_text(derive_topology(s, s.topology_inline, "sc-x"), "d").seed, 5u);
  // A count that disagrees, an empty list and a word are named.
  EXPECT_THROW(parse_scenario_text(base + "seeds: [1, 2]\nrepetitions: 3\n", "s.yaml"),
               ValidationError);
  EXPECT_NO_THROW(parse_scenario_text(base + "seeds: [1, 2]\nrepetitions: 2\n", "s.yaml"));
  EXPECT_THROW(parse_scenario_text(base + "seeds: []\n", "s.yaml"), ValidationError);
  try {
    parse_scenario_text(base + "seeds: [1, two]\n", "s.yaml");
    FAIL() << "accepted a seed that is no number";
  } catch (const ValidationError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].line, 6);
    EXPECT_NE(e.diagnostics()[0].message.find("'two' is not a whole number"), std::string::npos);
  }
}

TEST(Scenario, RerouteSetsTheTopologysRoutingEitherWay) {
  const std::string base = R"(
name: routed
topology: {lab: x, reroute: {convergence: 1s}, defaults: {bandwidth: 100mbit},
           nodes: {a: {}, b: {}}, links: [{endpoints: [a, b]}]}
strategies: [ps]
)";
  const auto routing = [&](const std::string& extra) {
    const Scenario s = parse_scenario_text(base + extra, "s.yaml");
    return parse_profile_text(derive_topology(s, s.topology_inline, "sc-x"), "d")
        .reroute_convergence_us;
  };
  EXPECT_EQ(routing(""), 1'000'000);  // the topology's own
  EXPECT_EQ(routing("reroute: static\n"), std::nullopt);
  EXPECT_EQ(routing("reroute: {convergence: 50ms}\n"), 50'000);
  EXPECT_EQ(routing("reroute: {}\n"), kDefaultConvergenceUs);
  try {
    parse_scenario_text(base + "reroute: sometimes\n", "s.yaml");
    FAIL() << "accepted a routing that is neither static nor a mapping";
  } catch (const ValidationError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].line, 6);
  }
  EXPECT_THROW(parse_scenario_text(base + "reroute: {convergence: soon}\n", "s.yaml"),
               ValidationError);
}

TEST(Scenario, PartitionEventsJoinTheTopologysPartitions) {
  const std::string base = R"(
name: parted
topology: {lab: x, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}, c: {}},
           links: [{endpoints: [a, b]}, {endpoints: [b, c]}]}
strategies: [ps]
dynamics:
  events:
)";
  const Scenario s =
      parse_scenario_text(base + "    - {at: 4s, partition: [c], heal: 34s}\n", "s.yaml");
  ASSERT_EQ(s.partitions.size(), 1u);
  const Topology t = parse_profile_text(derive_topology(s, s.topology_inline, "sc-x"), "d");
  ASSERT_EQ(t.partitions.size(), 1u);
  // The one crossing link, b-c, is down both ways from 4 s to 34 s.
  EXPECT_EQ(t.links[1].a2b.faults.size(), 2u);
  EXPECT_EQ(t.links[1].a2b.faults[0].at_us, 4'000'000);
  EXPECT_EQ(t.links[1].b2a.faults[1].at_us, 34'000'000);
  EXPECT_TRUE(t.links[0].a2b.faults.empty());
  // No heal, and a partition of an unknown node (judged with the derived topology).
  EXPECT_THROW(parse_scenario_text(base + "    - {at: 4s, partition: [c]}\n", "s.yaml"),
               ValidationError);
  const Scenario z =
      parse_scenario_text(base + "    - {at: 4s, partition: [z], heal: 5s}\n", "s.yaml");
  EXPECT_THROW(parse_profile_text(derive_topology(z, z.topology_inline, "sc-x"), "d"),
               ValidationError);
}

TEST(Scenario, EventsOnMissingOrScheduledLinksAreRefused) {
  Scenario s = parse_scenario_text(kGood, "demo.yaml");
  s.events = {{5, "a", "c", "both", "1mbit", "", "", ""}};
  EXPECT_THROW(derive_topology(s, s.topology_inline, "sc-demo"), ValidationError);
  s.events = {{5, "a", "b", "both", "1mbit", "", "", ""}};
  const std::string scheduled =
      "lab: x\ndefaults: {bandwidth: 10mbit, schedule: {random: {every: 1s, bandwidth: "
      "1mbit..2mbit}}}\nnodes: {a: {}, b: {}}\nlinks: [{endpoints: [a, b]}]\n";
  EXPECT_THROW(derive_topology(s, scheduled, "sc-demo"), ValidationError);
}

TEST(Scenario, VerdictsNameWhatWasMeasured) {
  const Scenario s = parse_scenario_text(kGood, "demo.yaml");
  std::map<std::string, StrategyOutcome> by;
  by["ps"].figures = {{"samples_per_s", 50}, {"mean_iteration_s", 12}};
  by["netstorm-pro"].figures = {{"samples_per_s", 150}, {"mean_iteration_s", 4}};
  auto v = judge(s, by);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_TRUE(v[0].passed) << v[0].detail;  // 3x >= 2
  EXPECT_NE(v[0].detail.find("measured 3"), std::string::npos);
  EXPECT_FALSE(v[1].passed);  // 12 s is not < 10
  EXPECT_TRUE(v[2].passed);
  by["netstorm-pro"] = {true, "agent on b died", {}, {}};
  v = judge(s, by);
  EXPECT_FALSE(v[0].passed);
  EXPECT_NE(v[0].detail.find("agent on b died"), std::string::npos);
  EXPECT_FALSE(v[2].passed);
}

TEST(Scenario, ConvergenceExpectationsCompareFiguresOfTwoStrategies) {
  const Scenario s = parse_scenario_text(R"(
name: converge
topology: {lab: x, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}}, links: [{endpoints: [a, b]}]}
workload: {model: mf, iterations: 3}
strategies: [bsp, ssp, async]
expect:
  - time_to_loss(ssp) / time_to_loss(bsp) <= 0.7
  - final_loss(async) <= 1.05 * final_loss(bsp)
  - wan_bytes(async) / wan_bytes(bsp) <= 1.2
  - time_to_loss(async) < 5
)",
                                         "converge.yaml");
  ASSERT_EQ(s.expectations.size(), 4u);
  EXPECT_EQ(s.expectations[0].kind, Expectation::Kind::kFigureRatio);
  EXPECT_EQ(s.expectations[1].kind, Expectation::Kind::kRelative);
  EXPECT_DOUBLE_EQ(s.expectations[1].value, 1.05);
  EXPECT_EQ(s.expectations[1].over_metric, "final_loss");
  std::map<std::string, StrategyOutcome> by;
  by["bsp"] = {false, "", {{"time_to_loss", 10}, {"final_loss", 0.2}, {"wan_bytes", 100}}, {}};
  by["ssp"] = {false, "", {{"time_to_loss", 6}, {"final_loss", 0.2}, {"wan_bytes", 100}}, {}};
  by["async"] = {false, "", {{"final_loss", 0.2}, {"wan_bytes", 130}}, {}};
  const auto v = judge(s, by);
  EXPECT_TRUE(v[0].passed) << v[0].detail;
  EXPECT_TRUE(v[1].passed) << v[1].detail;
  EXPECT_FALSE(v[2].passed) << v[2].detail;
  EXPECT_FALSE(v[3].passed);
  EXPECT_NE(v[3].detail.find("did not reach the target loss"), std::string::npos) << v[3].detail;
  EXPECT_THROW(parse_scenario_text(R"(
name: bad
topology: {lab: x, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}}, links: [{endpoints: [a, b]}]}
strategies: [bsp]
expect: [ 'time_to_lost(bsp) < 3' ]
)",
                                   "bad.yaml"),
               ValidationError);
}

TEST(Scenario, EmulationHealthyFailsOnAnyRunsProblemAndHealthFiguresCanBeBounded) {
  const Scenario s = parse_scenario_text(R"(
name: health
topology: {lab: x, defaults: {bandwidth: 100mbit}, nodes: {a: {}, b: {}}, links: [{endpoints: [a, b]}]}
strategies: [ps, mst]
expect:
  - emulation healthy
  - release_lateness_p99_ms(ps) <= 1
)",
                                         "health.yaml");
  ASSERT_EQ(s.expectations.size(), 2u);
  EXPECT_EQ(s.expectations[0].kind, Expectation::Kind::kEmulationHealthy);
  std::map<std::string, StrategyOutcome> by;
  by["ps"] = {false, "", {{"release_lateness_p99_ms", 0.2}}, {}};
  by["mst"] = {false, "", {{"release_lateness_p99_ms", 0.1}}, {}};
  auto v = judge(s, by);
  EXPECT_TRUE(v[0].passed) << v[0].detail;
  EXPECT_TRUE(v[1].passed) << v[1].detail;
  by["mst"].health_problems = {"CPUs saturated 80% of the run"};
  v = judge(s, by);
  EXPECT_FALSE(v[0].passed);
  EXPECT_EQ(v[0].detail, "mst: CPUs saturated 80% of the run");
}

TEST(Junit, CountsFailuresAndEscapes) {
  const std::string x = junit_xml("suite <1>", {{"s", "a / b >= 2", 1.5, false, ""},
                                                {"s", "x", 0, true, "measured \"1\" & less"}});
  EXPECT_NE(x.find("tests=\"2\" failures=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("name=\"suite &lt;1&gt;\""), std::string::npos);
  EXPECT_NE(x.find("<failure message=\"measured &quot;1&quot; &amp; less\"/>"), std::string::npos);
  EXPECT_NE(x.find("<testcase classname=\"s\" name=\"a / b &gt;= 2\" time=\"1.5\"/>"),
            std::string::npos);
}

// A scenario is parsed only when it runs, and some take an hour: a broken bundled file
// would otherwise be found by whoever runs it next.
TEST(Scenario, EveryBundledScenarioAndItsTopologyParse) {
  namespace fs = std::filesystem;
  size_t scenarios = 0;
  for (const auto& e : fs::recursive_directory_iterator(TESTBED_PROFILES_DIR + "/scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    SCOPED_TRACE(e.path().string());
    Scenario s;
    ASSERT_NO_THROW(s = parse_scenario_file(e.path().string()));
    if (!s.topology_path.empty()) {
      EXPECT_NO_THROW(parse_profile_file(s.topology_path));
    }
    ++scenarios;
  }
  EXPECT_GE(scenarios, 40u);  // 53 today: the walk found the bundled files
}

}  // namespace
}  // namespace testbed
