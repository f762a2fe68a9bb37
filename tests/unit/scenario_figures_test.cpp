// A strategy's figures in a scenario (controller/runs/scenario_figures.h): the core's means
// and worsts over repetitions, and a system's own figures from its registry entry's hook,
// found by the summaries' strategy (the core names no system).
#include "controller/runs/scenario_figures.h"

#include <gtest/gtest.h>

namespace testbed {
namespace {

nlohmann::json run_of(const std::string& strategy, double mean_s) {
  return {{"strategy", strategy},
          {"mean_iteration_s", mean_s},
          {"samples_per_s", 100.0},
          {"iteration_s", {mean_s, 2 * mean_s}},
          {"final_loss", 0.5},
          {"wan_bytes", 1000.0},
          {"time_to_target_s", 3.0}};
}

TEST(ScenarioFigures, MeansAndWorstsOverRepetitions) {
  StrategyOutcome o;
  add_run_figures({run_of("bsp", 1.0), run_of("bsp", 3.0)}, o);
  EXPECT_DOUBLE_EQ(o.figures.at("mean_iteration_s"), 2.0);
  EXPECT_DOUBLE_EQ(o.figures.at("max_iteration_s"), 6.0);  // the slowest iteration of any
  EXPECT_DOUBLE_EQ(o.figures.at("time_to_loss"), 3.0);
  EXPECT_DOUBLE_EQ(o.figures.at("runs"), 2.0);
  EXPECT_FALSE(o.figures.count("failover_updates_lost"));  // no system's figure for bsp
}

TEST(ScenarioFigures, MlfabricsFailoverIsTheWorstOverRepetitions) {
  auto a = run_of("mlfabric-a", 1.0), b = run_of("mlfabric-a", 1.0);
  a["mlfabric"]["failover"] = {{"updates_lost", 2}, {"crash_to_first_update_applied_s", 1.5}};
  b["mlfabric"]["failover"] = {{"updates_lost", 5}, {"crash_to_first_update_applied_s", 0.5}};
  StrategyOutcome o;
  add_run_figures({a, b}, o);
  EXPECT_DOUBLE_EQ(o.figures.at("failover_updates_lost"), 5.0);
  EXPECT_DOUBLE_EQ(o.figures.at("failover_recovery_s"), 1.5);
}

TEST(ScenarioFigures, GaiasReplicasThatNeverCaughtUpHaveNoCatchUpTime) {
  auto a = run_of("gaia", 1.0), b = run_of("gaia", 1.0);
  a["gaia"]["divergence"] = {{"at_heal", 0.2}, {"caught_up_s", 4.0}};
  b["gaia"]["divergence"] = {{"at_heal", 0.3}, {"caught_up_s", nullptr}};
  StrategyOutcome caught, never;
  add_run_figures({a}, caught);
  EXPECT_DOUBLE_EQ(caught.figures.at("catch_up_s"), 4.0);
  add_run_figures({a, b}, never);
  EXPECT_DOUBLE_EQ(never.figures.at("divergence_at_heal"), 0.3);
  EXPECT_FALSE(never.figures.count("catch_up_s"));  // so a bound on it fails
}

}  // namespace
}  // namespace testbed
