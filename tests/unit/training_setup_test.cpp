// The setup command of data-parallel runs (agent/contracts/training_setup.h): what the
// controller writes the agent reads back whole, a bad field is refused by name, and the two
// ends' defaults are one.
#include "agent/contracts/training_setup.h"

#include <gtest/gtest.h>

#include "agent/contracts/message_fields.h"
#include "controller/options/run_options.h"
#include "controller/options/workload_settings.h"

namespace testbed {
namespace {

TrainingSetup filled() {
  TrainingSetup s;
  s.van.endpoints = {"tcp://198.18.0.1:7000", "tcp://198.18.0.2:7000", "tcp://198.18.0.3:7000"};
  s.van.secret = "0123456789abcdef";
  s.van.max_message = 1 << 20;
  s.protocol = "ps";
  s.job = {.name = "mf",
           .seed = 7,
           .scale = 0.25,
           .parameters = 0,
           .workers_per_node = 2,
           .t_in_passes = true};
  s.slow = {{2, 1.5}};
  s.workers = {0, 1, 2};
  s.servers = {1};
  s.consistency = "ssp";
  s.staleness = 2;
  s.iterations = 40;
  s.compute = {.min_ms = 100, .max_ms = 250, .straggler_share = 0.1, .straggler_factor = 2};
  s.seed = 9;
  s.eval_interval_ms = 250;
  s.routes = std::vector<SourceRoute>{{{0, 2, 1}, 1.25e6}, {{1, 0}, 0}};
  s.transfer = "model";
  s.store = StoreSetup{.dir = "/run/tb/x",
                       .memory_budget_bytes = 1 << 20,
                       .direct_reads = false,
                       .pibs = {{1, 2, 3}, {7}}};
  s.key_partition = "/run/tb/x/partition.bin";
  s.scheduled = true;
  s.distribution = true;
  s.pull_batch_ms = 100;
  s.replica = 2;
  s.checkpoint = {.every = 8, .path = "/run/tb/x/checkpoint.bin", .standby = 2};
  return s;
}

GaiaSetup gaia_setup() {
  GaiaSetup g;
  g.threshold = 0.01;
  g.ds = 2;
  g.soft = true;
  g.local_staleness = 1;
  g.t_in_passes = true;
  g.mirrors = {{0, {{2, 4096, false}}}, {2, {{0, 4096, true}}}};
  g.continue_when_cut = false;
  g.silence_ms = {{0, {{2, 2500}}}, {2, {{0, 2500}}}};
  return g;
}

std::string refusal(const nlohmann::json& j) {
  try {
    training_setup_from_json(j);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TrainingSetup, WhatTheControllerWritesTheAgentReadsBackWhole) {
  const TrainingSetup s = filled();
  EXPECT_EQ(training_setup_from_json(to_json(s)), s);
  TrainingSetup gaia = filled();
  gaia.protocol = "gaia";
  gaia.consistency = "";  // the parameter server's only
  gaia.gaia = gaia_setup();
  EXPECT_EQ(training_setup_from_json(to_json(gaia)), gaia);
  // A data center without mirrors, or without silence bounds, keeps its empty entry.
  gaia.gaia->mirrors[1] = {};
  gaia.gaia->silence_ms[1] = {};
  EXPECT_EQ(training_setup_from_json(to_json(gaia)), gaia);
  EXPECT_FALSE(to_json(gaia).contains("consistency"));
  // Compute burnt on the CPU travels as "as": "cpu"; the default wait is absent.
  TrainingSetup cpu = filled();
  cpu.compute.on_cpu = true;
  EXPECT_EQ(to_json(cpu)["compute"]["as"], "cpu");
  EXPECT_EQ(training_setup_from_json(to_json(cpu)), cpu);
  EXPECT_FALSE(to_json(filled())["compute"].contains("as"));
  nlohmann::json bad = to_json(cpu);
  bad["compute"]["as"] = "gpu";
  EXPECT_NE(refusal(bad).find("as"), std::string::npos) << refusal(bad);
}

TEST(TrainingSetup, AMissingFieldIsRefusedByName) {
  for (const char* field : {"endpoints", "protocol", "job", "workers", "staleness", "iterations",
                            "compute", "seed", "eval_interval_ms"}) {
    auto j = to_json(filled());
    j.erase(field);
    EXPECT_EQ(refusal(j), std::string("setup.") + field + " is missing");
  }
  auto j = to_json(filled());
  j["compute"].erase("max_ms");
  EXPECT_EQ(refusal(j), "setup.compute.max_ms is missing");
  j = to_json(filled());
  j.erase("consistency");  // the parameter server cannot run without its model
  EXPECT_EQ(refusal(j), "setup.consistency is missing");
}

TEST(TrainingSetup, AnUnknownOrMistypedFieldIsRefusedByName) {
  auto j = to_json(filled());
  j["stalenes"] = 3;
  EXPECT_EQ(refusal(j), "setup.stalenes is not a field of this message");
  j = to_json(filled());
  j["job"]["workers"] = 3;
  EXPECT_EQ(refusal(j), "setup.job.workers is not a field of this message");
  j = to_json(filled());
  j["iterations"] = "forty";
  EXPECT_EQ(refusal(j), "setup.iterations has the wrong type (string)");
}

TEST(TrainingSetup, AValueOutOfItsRangeIsRefusedByName) {
  const auto with = [](const char* path, const nlohmann::json& value) {
    auto j = to_json(filled());
    j[nlohmann::json::json_pointer(path)] = value;
    return refusal(j);
  };
  EXPECT_NE(with("/iterations", 0).find("setup.iterations is 0, outside [1,"), std::string::npos);
  EXPECT_NE(with("/staleness", -1).find("setup.staleness is -1"), std::string::npos);
  EXPECT_NE(with("/compute/max_ms", 50).find("setup.compute.max_ms is 50, outside [100,"),
            std::string::npos);
  EXPECT_NE(with("/compute/straggler_share", 1.5).find("setup.compute.straggler_share"),
            std::string::npos);
  EXPECT_NE(with("/workers", nlohmann::json::array({0, 3})).find("names node 3"),
            std::string::npos);
  EXPECT_NE(with("/consistency", "eventual").find("not bsp, ssp, async or wsp"), std::string::npos);
  EXPECT_NE(with("/slow", nlohmann::json{{"x", 2}}).find("setup.slow has 'x'"), std::string::npos);
  EXPECT_NE(with("/eval_interval_ms", 0).find("setup.eval_interval_ms is 0"), std::string::npos);
  EXPECT_EQ(with("/cmd", "quit"), "setup.cmd is not setup");
  EXPECT_NE(with("/checkpoint/every", 0).find("setup.checkpoint.every is 0"), std::string::npos);
  EXPECT_NE(with("/checkpoint/path", "ckpt").find("setup.checkpoint.path is not an absolute"),
            std::string::npos);
  EXPECT_NE(with("/checkpoint/standby", 3).find("setup.checkpoint.standby names no endpoint"),
            std::string::npos);
}

// Gaia's part is read field by field as the rest is: every field required (the two ends
// once defaulted "t" differently), node indices checked against the run's endpoints.
TEST(TrainingSetup, GaiasPartIsRefusedByNameWhenBad) {
  TrainingSetup gaia = filled();
  gaia.protocol = "gaia";
  gaia.consistency = "";
  gaia.gaia = gaia_setup();
  const auto with = [&](const char* path, const nlohmann::json& value) {
    auto j = to_json(gaia);
    j[nlohmann::json::json_pointer(path)] = value;
    return refusal(j);
  };
  auto j = to_json(gaia);
  j["gaia"].erase("t");
  EXPECT_EQ(refusal(j), "setup.gaia.t is missing");
  j = to_json(gaia);
  j.erase("gaia");
  EXPECT_EQ(refusal(j), "setup.gaia is missing");
  EXPECT_EQ(with("/gaia/extra", 1), "setup.gaia.extra is not a field of this message");
  EXPECT_EQ(with("/gaia/partition", "wait"),
            "setup.gaia.partition is 'wait', not continue or block");
  EXPECT_NE(with("/gaia/threshold", 2).find("setup.gaia.threshold is 2"), std::string::npos);
  EXPECT_NE(with("/gaia/mirrors/0/0/node", 3).find("setup.gaia.mirrors.0.node is 3"),
            std::string::npos);
  EXPECT_EQ(with("/gaia/mirrors/01", nlohmann::json::array()),
            "setup.gaia.mirrors has the key '01', not a node of the run");
  EXPECT_EQ(with("/gaia/silence_ms/0/7", 100),
            "setup.gaia.silence_ms.0.7 has the key '7', not a node of the run");
  EXPECT_NE(with("/gaia/silence_ms/0/2", 0).find("setup.gaia.silence_ms.0.2 is 0"),
            std::string::npos);
  EXPECT_EQ(with("/gaia/mirrors/0/0/hub", "yes"),
            "setup.gaia.mirrors.0.hub has the wrong type (string)");
}

// DRPS's store and APSP's routes are read field by field too; the keys' placement is the
// core's, not the store's.
TEST(TrainingSetup, TheStoresAndTheRoutesPartsAreRefusedByNameWhenBad) {
  const auto with = [](const char* path, const nlohmann::json& value) {
    auto j = to_json(filled());
    j[nlohmann::json::json_pointer(path)] = value;
    return refusal(j);
  };
  auto j = to_json(filled());
  j["store"].erase("memory_budget_bytes");
  EXPECT_EQ(refusal(j), "setup.store.memory_budget_bytes is missing");
  EXPECT_EQ(with("/store/dir", "x"), "setup.store.dir is not an absolute path");
  EXPECT_EQ(with("/store/partition", "/p"), "setup.store.partition is not a field of this message");
  EXPECT_EQ(with("/store/pibs", nlohmann::json::array({nlohmann::json::array()})),
            "setup.store.pibs holds an empty block");
  EXPECT_EQ(with("/key_partition", "p.bin"), "setup.key_partition is not an absolute path");
  // APSP's routes: nodes of the run, at least two, a pace that is a rate.
  EXPECT_EQ(with("/routes/0/nodes", nlohmann::json::array({1})),
            "setup.routes.0.nodes holds fewer than two nodes");
  EXPECT_NE(with("/routes/1/nodes", nlohmann::json::array({1, 3}))
                .find("setup.routes.1.nodes names node 3"),
            std::string::npos);
  EXPECT_NE(with("/routes/0/pace_bytes_per_s", -1).find("setup.routes.0.pace_bytes_per_s is -1"),
            std::string::npos);
  EXPECT_EQ(with("/routes/0/via", 2), "setup.routes.0.via is not a field of this message");
  EXPECT_EQ(with("/routes", 5), "setup.routes is not a list");
  EXPECT_EQ(with("/transfer", "fast"), "setup.transfer is 'fast', not native or model");
  // Absent, the store's direct reads are the store's own default (rocks_store.h).
  j = to_json(filled());
  j["store"].erase("direct_reads");
  EXPECT_TRUE(training_setup_from_json(j).store->direct_reads);
}

// The defect this contract closed: the controller defaulted SSP's bound to 3 and the agent
// to 0, the evaluation interval to 500 ms and 1000 ms. Both now read this one place.
TEST(TrainingSetup, TheControllersDefaultsAreTheContracts) {
  const TrainOptions o{};
  EXPECT_EQ(o.staleness, TrainingSetup::kDefaultStaleness);
  EXPECT_EQ(static_cast<int>(o.eval_every_s * 1000), TrainingSetup::kDefaultEvalIntervalMs);
  const TrainingSetup fresh{};
  EXPECT_EQ(fresh.staleness, 3);
  EXPECT_EQ(fresh.eval_interval_ms, 500);
}

// The interval goes to the agents in whole milliseconds, so the option refuses what would
// round to none rather than let the agents evaluate without pause.
TEST(TrainingSetup, AnEvaluationIntervalBelowAMillisecondIsRefusedAsAnOption) {
  EXPECT_EQ(check_workload_setting("eval-every", "0.001"), "");
  EXPECT_EQ(check_workload_setting("eval-every", "0.0004"), "expected seconds, at least 0.001");
}

}  // namespace
}  // namespace testbed
