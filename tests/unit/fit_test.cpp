// The fit of a run to the machine (controller/lab/fit): the demand a lab's links can make,
// the budget a measurement gives, the decision between them, and what a factor scales
// (the topology's rates, a run's model). Pure: no lab, no root.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "controller/lab/fit/emulation_budget.h"
#include "controller/lab/fit/fit_decision.h"
#include "controller/lab/fit/run_demand.h"
#include "controller/lab/fit/scale_rates.h"
#include "controller/lab/planner.h"
#include "controller/options/run_options.h"
#include "controller/topology/topology_parser.h"

namespace testbed {
namespace {

// Two links, one of them only delayed one way (b -> a carries no delay: no delay line).
const char* const kTwoLinks = R"(lab: fitlab
nodes: {a: {}, b: {}, c: {}}
links:
  - endpoints: [a, b]
    a2b: {bandwidth: 100mbit, delay: 10ms}
    b2a: {bandwidth: 50mbit}
  - endpoints: [b, c]
    bandwidth: 20mbit
    delay: 5ms
    a2b:
      schedule:
        steps:
          - {at: 10s, bandwidth: 40mbit}
)";

Plan plan_of(const std::string& text) {
  return make_plan(parse_profile_text(text, "fit.yaml"), /*kernel_has_netem=*/false);
}

double packets(double bits_per_s) {
  return bits_per_s / 8 / kBytesPerDataPacket;
}

TEST(RunDemand, EveryDelayedDirectionAtItsPeakRateWithItsAcks) {
  const RunDemand d = estimate_demand(plan_of(kTwoLinks));
  EXPECT_EQ(d.directions, 3u);  // a->b, b->c, c->b; b->a has no delay
  // b->c peaks at its step's 40 Mbit/s, not its 20.
  EXPECT_DOUBLE_EQ(d.bits_per_s, 100e6 + 40e6 + 20e6);
  // a->b's data, but not its ACKs (they cross b->a, undelayed); b->a's data is not
  // delayed, its ACKs are (a->b); b<->c both ways, with their ACKs.
  const double expected = packets(100e6) + packets(50e6) + 2 * packets(40e6) + 2 * packets(20e6);
  EXPECT_NEAR(d.packets_per_s, expected, 1e-6);
}

EmulationBudget budget_of(double packets_per_cpu_s) {
  EmulationBudget b;
  b.packets_per_cpu_s = packets_per_cpu_s;
  b.cpu_us_per_packet = kFitBusyShare * 1e6 / packets_per_cpu_s;
  b.bits_per_packet = 16000;
  b.cpus = 2;
  b.cpu_scope = "2 CPUs (0-1)";
  b.backend = "delayline";
  return b;
}

TEST(FitDecision, ScaleRefuseOrNoteWhenTheDemandExceedsTheBudget) {
  RunDemand demand;
  demand.packets_per_s = 100000;
  const auto budget = budget_of(10000);  // 20,000 packets/s on 2 CPUs, 10,000 on 1

  const Fit scaled = decide_fit(FitMode::kScale, demand, budget, 2, "2 CPUs (0-1)");
  EXPECT_DOUBLE_EQ(scaled.factor, 0.2);
  EXPECT_TRUE(scaled.exceeds);
  EXPECT_FALSE(scaled.refused);
  EXPECT_NE(scaled.why.find("scaled by 0.2"), std::string::npos) << scaled.why;

  // The lab's own CPUs, not the measurement's: confined to one, half the budget.
  EXPECT_DOUBLE_EQ(decide_fit(FitMode::kScale, demand, budget, 1, "1 CPU (0)").factor, 0.1);

  const Fit refused = decide_fit(FitMode::kRefuse, demand, budget, 2, "2 CPUs (0-1)");
  EXPECT_TRUE(refused.refused);
  EXPECT_DOUBLE_EQ(refused.factor, 1);
  EXPECT_NE(refused.why.find("--fit scale would scale rates and model bytes by 0.2"),
            std::string::npos)
      << refused.why;

  const Fit off = decide_fit(FitMode::kOff, demand, budget, 2, "2 CPUs (0-1)");
  EXPECT_FALSE(off.refused);
  EXPECT_DOUBLE_EQ(off.factor, 1);
  EXPECT_TRUE(off.exceeds);
}

TEST(FitDecision, WithinTheBudgetOrWithoutOneNothingChanges) {
  RunDemand demand;
  demand.packets_per_s = 5000;
  for (FitMode m : {FitMode::kScale, FitMode::kRefuse}) {
    const Fit within = decide_fit(m, demand, budget_of(10000), 2, "2 CPUs");
    EXPECT_DOUBLE_EQ(within.factor, 1);
    EXPECT_FALSE(within.refused);
    EXPECT_FALSE(within.exceeds);
    const Fit unknown = decide_fit(m, demand, std::nullopt, 2, "2 CPUs");
    EXPECT_DOUBLE_EQ(unknown.factor, 1);
    EXPECT_FALSE(unknown.refused);
    EXPECT_NE(unknown.why.find("testbed doctor --budget"), std::string::npos);
  }
}

TEST(FitDecision, AFactorBelowTheLeastIsRefusedEvenWhenScaling) {
  RunDemand demand;
  demand.packets_per_s = 1e7;
  const Fit f = decide_fit(FitMode::kScale, demand, budget_of(10000), 2, "2 CPUs");
  EXPECT_TRUE(f.refused);  // 0.002 < kMinFitFactor
  EXPECT_DOUBLE_EQ(f.factor, 1);
}

TEST(FitDecision, AFixedFactorIsTakenAsGivenAndItsExcessSaid) {
  RunDemand demand;
  demand.packets_per_s = 100000;
  const Fit within = decide_fit(FitMode::kFixed, demand, budget_of(10000), 2, "2 CPUs", 0.05);
  EXPECT_DOUBLE_EQ(within.factor, 0.05);
  EXPECT_FALSE(within.exceeds);  // 5,000 of 20,000
  EXPECT_FALSE(within.refused);
  const Fit over = decide_fit(FitMode::kFixed, demand, budget_of(10000), 2, "2 CPUs", 0.5);
  EXPECT_DOUBLE_EQ(over.factor, 0.5);
  EXPECT_TRUE(over.exceeds);
  EXPECT_NE(over.why.find("over this machine's budget"), std::string::npos) << over.why;
  EXPECT_DOUBLE_EQ(decide_fit(FitMode::kFixed, demand, std::nullopt, 2, "2 CPUs", 0.3).factor, 0.3);
  EXPECT_EQ(fit_to_json(over)["mode"], "fixed");
}

TEST(FitDecision, FactorsRoundDownToTwoFigures) {
  EXPECT_DOUBLE_EQ(round_factor_down(0.3172), 0.31);
  EXPECT_DOUBLE_EQ(round_factor_down(0.3), 0.3);
  EXPECT_DOUBLE_EQ(round_factor_down(0.1035), 0.1);
  EXPECT_EQ(round_factor_down(0.05199), 0.051);  // the decimal, not 0.051000000000000004
  EXPECT_DOUBLE_EQ(round_factor_down(0), 0);
  for (double x : {0.99, 0.5, 0.123, 0.0777, 0.0101}) EXPECT_LE(round_factor_down(x), x);
  EXPECT_DOUBLE_EQ(fit_factor_of(nlohmann::json(nullptr)), 1);
  EXPECT_DOUBLE_EQ(fit_factor_of(fit_to_json(
                       decide_fit(FitMode::kScale, {1e5, 0, 1}, budget_of(10000), 2, "2 CPUs"))),
                   0.2);
  EXPECT_EQ(parse_fit_mode("scale"), FitMode::kScale);
  EXPECT_FALSE(parse_fit_mode("Scale"));
}

TEST(EmulationBudget, FromAMeasurementAndBackThroughItsFile) {
  BudgetMeasurement m;
  m.seconds = 8;
  m.packets = 200000;
  m.bits = 3.2e9;
  m.busy_cpu_s = 10;  // 50 us a packet
  m.delay_line_cpu_s = 7;
  m.traffic_cpu_s = 2;
  m.cpus = 2;
  m.cpu_scope = "2 CPUs (0-1)";
  m.backend = "delayline";
  const EmulationBudget b = budget_from_measurement(m);
  EXPECT_DOUBLE_EQ(b.cpu_us_per_packet, 50);
  EXPECT_DOUBLE_EQ(b.packets_per_cpu_s, kFitBusyShare * 20000);
  EXPECT_DOUBLE_EQ(b.packets_per_s(2), 2 * kFitBusyShare * 20000);
  EXPECT_DOUBLE_EQ(b.bits_per_packet, 16000);
  EXPECT_DOUBLE_EQ(b.delay_line_cpu_share, 0.7);
  m.packets = 0;
  EXPECT_THROW(budget_from_measurement(m), std::runtime_error);

  const auto dir = std::filesystem::temp_directory_path() / "tb-fit-test";
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "budget.json").string();
  EXPECT_FALSE(load_budget(path));  // none measured
  save_budget(b, path);
  EXPECT_EQ(std::filesystem::status(path).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const auto back = load_budget(path);
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->packets_per_cpu_s, b.packets_per_cpu_s);
  EXPECT_EQ(back->cpu_scope, "2 CPUs (0-1)");
  std::ofstream(path) << R"({"cpu_us_per_packet": 50})";  // a field missing
  try {
    load_budget(path);
    ADD_FAILURE() << "a corrupt budget passed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("packets_per_cpu_s"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(ScaleRates, EveryRateAndWhatIsSizedWithItButNotTheDelays) {
  Topology t = parse_profile_text(std::string(kTwoLinks) + R"(    b2a: {queue: 64kb}
cross_traffic:
  - {from: a, to: c, kind: udp, rate: 10mbit}
)",
                                  "fit.yaml");
  scale_topology_rates(t, 0.25);
  EXPECT_EQ(t.links[0].a2b.rate.bits_per_s, 25000000u);
  EXPECT_EQ(t.links[0].a2b.delay.us, 10000);
  EXPECT_EQ(t.links[0].b2a.rate.bits_per_s, 12500000u);
  EXPECT_EQ(t.links[1].a2b.schedule.changes.at(0).rate->bits_per_s, 10000000u);
  EXPECT_EQ(t.links[1].b2a.queue->amount, 65536u / 4);  // 64kb is 65,536 bytes
  EXPECT_EQ(t.cross_traffic.at(0).rate.bits_per_s, 2500000u);
  // The demand falls by the factor with the rates.
  const double before = estimate_demand(plan_of(kTwoLinks)).packets_per_s;
  Topology again = parse_profile_text(kTwoLinks, "fit.yaml");
  scale_topology_rates(again, 0.25);
  EXPECT_NEAR(estimate_demand(make_plan(again, false)).packets_per_s, before * 0.25, 1e-6);
}

TEST(ApplyFitFactor, TheModelFollowsTheLabsRates) {
  TrainOptions tree = resolve_train_options({}, {{"strategy", "netstorm"}, {"scale", "0.1"}});
  const size_t elements = tree.elements;
  apply_fit_factor(tree, 0.1);
  EXPECT_DOUBLE_EQ(tree.fit_factor, 0.1);
  EXPECT_EQ(tree.scale, 0.01);  // exactly: not 0.010000000000000002
  EXPECT_EQ(tree.elements, elements / 10);

  TrainOptions ps = resolve_train_options({}, {{"strategy", "bsp"}, {"model", "mf"}});
  const double job_scale = ps.scale;
  apply_fit_factor(ps, 0.5);
  EXPECT_DOUBLE_EQ(ps.scale, job_scale * 0.5);

  TrainOptions same = resolve_train_options({}, {{"strategy", "netstorm"}});
  apply_fit_factor(same, 1);
  EXPECT_DOUBLE_EQ(same.fit_factor, 1);
  EXPECT_DOUBLE_EQ(same.scale, 0.1);
  EXPECT_THROW(apply_fit_factor(same, 1e-12), UsageError);
}

}  // namespace
}  // namespace testbed
