// DiLoCo's own options (Douillard et al., 2023, arXiv 2311.08105), as its setup command
// carries them in TrainingSetup::policy: one struct for both ends. The controller's option
// table (controller/training/diloco/diloco_options.cpp) takes its defaults and ranges from
// here; the agents read the policy with diloco_policy_from_json, which refuses a missing,
// mistyped, out-of-range or unknown field by name.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace testbed {

struct DilocoPolicy {
  // H, the inner steps between two outer steps. The paper's is 500, in language-model runs
  // of tens of thousands of steps; our jobs reach their targets in hundreds of clocks, so
  // H is scaled down with them: 10 by default, and docs/diloco.md sweeps it to where it
  // stops paying.
  static constexpr int kDefaultInnerSteps = 10;
  static constexpr int kMostInnerSteps = 100000;  // more than any run's clocks
  // The ranges both ends check: a learning rate above these is a typo, not an experiment.
  static constexpr double kMostOuterLr = 10, kMostMomentum = 0.999;
  static constexpr double kMostInnerLr = 1, kMostWeightDecay = 1;
  int inner_steps = kDefaultInnerSteps;
  // The outer optimizer: SGD with Nesterov momentum on the averaged pseudo-gradient, the
  // paper's learning rate 0.7 and momentum 0.9 (its Sec. 3).
  double outer_lr = 0.7;
  double outer_momentum = 0.9;
  // The inner optimizer. "sgd": the job's own step, the one every other strategy trains the
  // same job by (the paper's inner optimizer is its synchronous baseline's, AdamW for its
  // language models; for our jobs that is their SGD). "adamw": the paper's, with its
  // learning rate and weight decay below and PyTorch's betas (0.9, 0.999) and epsilon.
  std::string inner = "sgd";
  double inner_lr = 4e-4;     // the paper's AdamW learning rate
  double weight_decay = 0.1;  // the paper's AdamW weight decay
  // The pseudo-gradients on the wire (agent/transport/value_codec.h), summed in fp32 at
  // every worker: fp32, the paper's; int8, INTELLECT-1's (arXiv 2412.01152); bf16 or fp4.
  std::string wire = "fp32";
  // Elastic membership (INTELLECT-1's): a data center that crashes or leaves drops out of
  // the next outer step instead of ending the run (docs/diloco.md). Off: the paper's
  // fixed membership, and no controller round trip per outer step.
  bool elastic = false;
  // Of an elastic run, the nodes that start outside it and join later (the controller's,
  // from the lab's schedules and node states; no option).
  std::vector<int> away;
  bool operator==(const DilocoPolicy&) const = default;
};

nlohmann::json to_json(const DilocoPolicy& p);
// Throws ContractError (agent/contracts/message_fields.h) naming the field.
DilocoPolicy diloco_policy_from_json(const nlohmann::json& j);

}  // namespace testbed
