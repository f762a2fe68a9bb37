// DiLoCo's parts, pure (agent/protocols/diloco/): the policy both ends share, the inner
// optimizers, the outer Nesterov step, and the whole algorithm run in memory: with H = 1,
// an outer rate of 1 and no momentum it is BSP exactly (the single-process reference), and
// with the paper's settings it trains.
#include <gtest/gtest.h>

#include <cmath>

#include "agent/contracts/message_fields.h"
#include "agent/jobs/job.h"
#include "agent/protocols/diloco/diloco_policy.h"
#include "agent/protocols/diloco/inner_optimizer.h"
#include "agent/protocols/diloco/outer_optimizer.h"
#include "controller/options/run_options.h"
#include "controller/training/diloco/diloco_options.h"
#include "controller/training/strategy_registry.h"

namespace testbed {
namespace {

TEST(Diloco, TheControllersTableGivesTheAgentsDefaults) {
  const nlohmann::json sent = option_values(diloco_options(), {});
  EXPECT_EQ(diloco_policy_from_json(sent), DilocoPolicy{});
  DilocoPolicy p;
  p.inner_steps = 7;
  p.inner = "adamw";
  EXPECT_EQ(diloco_policy_from_json(to_json(p)), p);
}

TEST(Diloco, APolicyIsRefusedByItsField) {
  const auto refusal = [](nlohmann::json j) {
    try {
      diloco_policy_from_json(j);
    } catch (const ContractError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  nlohmann::json j = to_json(DilocoPolicy{});
  j["inner_steps"] = 0;
  EXPECT_NE(refusal(j).find("inner_steps"), std::string::npos);
  j = to_json(DilocoPolicy{});
  j["inner"] = "lamb";
  EXPECT_NE(refusal(j).find("inner"), std::string::npos);
  j = to_json(DilocoPolicy{});
  j["extra"] = 1;
  EXPECT_NE(refusal(j).find("extra"), std::string::npos);
  j = to_json(DilocoPolicy{});
  j.erase("outer_lr");
  EXPECT_NE(refusal(j).find("outer_lr"), std::string::npos);
  EXPECT_NE(refusal(nullptr), "");
}

TEST(Diloco, OuterStepIsNesterovOnTheAveragedPseudoGradient) {
  // lr 1, no momentum: the shared model becomes the data centers' mean model (FedAvg).
  std::vector<float> theta = {1.0f, 2.0f};
  NesterovOuter avg(1.0, 0.0, 2);
  avg.step(theta, {0.5f + 1.5f, -1.0f + 1.0f}, 2);  // locals (0.5, 3) and (-0.5, 1)
  EXPECT_FLOAT_EQ(theta[0], 0.0f);
  EXPECT_FLOAT_EQ(theta[1], 2.0f);
  // lr 0.7, mu 0.9, by hand: g = 1; b = 1, step 0.7 * (1 + 0.9) = 1.33; then g = 1 again:
  // b = 1.9, step 0.7 * (1 + 1.71) = 1.897.
  std::vector<float> t = {10.0f};
  NesterovOuter nesterov(0.7, 0.9, 1);
  nesterov.step(t, {2.0f}, 2);
  EXPECT_NEAR(t[0], 10.0 - 1.33, 1e-5);
  nesterov.step(t, {2.0f}, 2);
  EXPECT_NEAR(t[0], 10.0 - 1.33 - 1.897, 1e-5);
  EXPECT_EQ(pseudo_gradient({3.0f, 1.0f}, {1.0f, 2.0f}), (std::vector<float>{2.0f, -1.0f}));
}

TEST(Diloco, InnerSgdTakesTheDataCentersOwnStepAndAdamwANormalisedOne) {
  DilocoPolicy p;
  std::vector<float> w = {0.0f, 0.0f, 0.0f};
  make_inner_optimizer(p, 3, 4)->step(w, {{1}, {0.25f}});
  EXPECT_EQ(w, (std::vector<float>{0.0f, 1.0f, 0.0f}));  // 4 workers' worth of its update
  p.inner = "adamw";
  p.weight_decay = 0;
  std::vector<float> a = {0.0f, 0.0f, 0.0f};
  make_inner_optimizer(p, 3, 4)->step(a, {{}, {0.001f, -5.0f, 0.0f}});
  // Adam's first step is the learning rate in the update's direction, whatever its size.
  EXPECT_NEAR(a[0], p.inner_lr, 1e-6);
  EXPECT_NEAR(a[1], -p.inner_lr, 1e-6);
  EXPECT_EQ(a[2], 0.0f);
  p.inner = "lamb";
  EXPECT_THROW(make_inner_optimizer(p, 3, 4), std::invalid_argument);
}

// DiLoCo in memory over `workers` workers of `config`: `rounds` outer steps of H inner
// steps each; the shared model at the end.
std::vector<float> run_in_memory(const JobConfig& config, const DilocoPolicy& p, int rounds) {
  std::vector<std::unique_ptr<Job>> jobs;
  std::vector<std::unique_ptr<InnerOptimizer>> inner;
  for (int w = 0; w < config.workers; ++w) {
    jobs.push_back(make_job(config, w));
    inner.push_back(make_inner_optimizer(p, jobs[0]->parameters(), config.workers));
  }
  std::vector<float> theta(jobs[0]->parameters());
  for (size_t k = 0; k < theta.size(); ++k)
    theta[k] = jobs[0]->initial_value(static_cast<uint32_t>(k));
  NesterovOuter outer(p.outer_lr, p.outer_momentum, theta.size());
  uint64_t clock = 0;
  for (int r = 0; r < rounds; ++r) {
    std::vector<float> sum(theta.size(), 0.0f);
    for (int w = 0; w < config.workers; ++w) {
      std::vector<float> local = theta;
      for (int s = 0; s < p.inner_steps; ++s)
        inner[static_cast<size_t>(w)]->step(local,
                                            jobs[static_cast<size_t>(w)]->update(clock + s, local));
      const auto d = pseudo_gradient(theta, local);
      for (size_t k = 0; k < sum.size(); ++k) sum[k] += d[k];
    }
    clock += static_cast<uint64_t>(p.inner_steps);
    outer.step(theta, sum, config.workers);
  }
  return theta;
}

TEST(Diloco, OneInnerStepWithoutMomentumIsBsp) {
  const JobConfig config{.name = "logreg", .seed = 3, .workers = 3};
  DilocoPolicy p;
  p.inner_steps = 1;
  p.outer_lr = 1;
  p.outer_momentum = 0;
  const auto theta = run_in_memory(config, p, 20);
  const ReferenceRun bsp = reference_run(config, 20);
  ASSERT_EQ(theta.size(), bsp.parameters.size());
  for (size_t k = 0; k < theta.size(); ++k) EXPECT_NEAR(theta[k], bsp.parameters[k], 1e-4) << k;
}

TEST(Diloco, ThePapersSettingsTrainTheJob) {
  const JobConfig config{.name = "logreg", .seed = 3, .workers = 3};
  auto job = make_job(config, 0);
  std::vector<float> start(job->parameters());
  for (size_t k = 0; k < start.size(); ++k) start[k] = job->initial_value(static_cast<uint32_t>(k));
  const double before = job->held_out_loss(start);
  DilocoPolicy p;  // H 10, outer 0.7 with Nesterov 0.9, the job's own inner step
  const double after = job->held_out_loss(run_in_memory(config, p, 10));
  EXPECT_LT(after, before * 0.8) << before << " -> " << after;
}

std::string usage_error(const CommandLine& cli, const nlohmann::json& workload) {
  try {
    resolve_train_options(cli, workload);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Diloco, ItsOptionsAreParsedFromTheCommandLineAndTheProfileIntoThePolicy) {
  const StrategyTraits* diloco = find_strategy("diloco");
  ASSERT_NE(diloco, nullptr);
  ASSERT_FALSE(diloco->options.empty());
  CommandLine cli;
  cli.options = {{"strategy", "diloco"}, {"diloco-h", "5"}};
  const TrainOptions o = resolve_train_options(cli, {{"diloco-inner", "adamw"}});
  EXPECT_EQ(o.policy["inner_steps"], 5);
  EXPECT_EQ(o.policy["inner"], "adamw");                      // the profile's
  EXPECT_DOUBLE_EQ(o.policy["outer_lr"].get<double>(), 0.7);  // the default
  // Another strategy's run has no policy, and refuses the option by its system's name.
  CommandLine bsp;
  bsp.options = {{"strategy", "bsp"}};
  EXPECT_TRUE(!resolve_train_options(bsp, {{"diloco-h", "5"}}).policy.contains("inner_steps"));
  bsp.options["diloco-h"] = "5";
  EXPECT_EQ(usage_error(bsp, nlohmann::json::object()),
            "--diloco-h is for diloco and streaming-diloco, not bsp");
  // A value out of range is refused naming the option, from either source.
  cli.options["diloco-h"] = "0";
  EXPECT_EQ(usage_error(cli, nlohmann::json::object()),
            "--diloco-h '0': expected a whole number, from 1 to 100000");
  cli.options.erase("diloco-h");
  EXPECT_EQ(usage_error(cli, {{"diloco-inner", "adam"}}),
            "the profile's workload.diloco-inner 'adam': expected sgd or adamw");
  // The tree strategies refuse it too.
  CommandLine tree;
  tree.options = {{"strategy", "mst"}, {"diloco-h", "3"}};
  EXPECT_EQ(usage_error(tree, nlohmann::json::object()),
            "--diloco-h is for diloco and streaming-diloco, not mst");
}

}  // namespace
}  // namespace testbed
