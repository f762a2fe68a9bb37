// DiLoCo's inner optimizer: what a data center does with each of its own updates between
// two outer steps, on its own copy of the model. A job's update (agent/jobs/job.h) is
// scaled so that the workers' updates sum to one step of the job's optimizer; a data
// center training alone takes `workers` times its own, the step its data alone gives.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/jobs/job.h"
#include "agent/protocols/diloco/diloco_policy.h"

namespace testbed {

class InnerOptimizer {
 public:
  virtual ~InnerOptimizer() = default;
  // Applies one update to `w` (the model's length).
  virtual void step(std::vector<float>& w, const SparseUpdate& u) = 0;
};

// "sgd": w += workers * u, the job's own step (its decaying rate included).
// "adamw": AdamW over the same direction (Loshchilov and Hutter): the update read as a
// negative gradient, bias-corrected moments, decoupled weight decay, every key each step
// (a key an update leaves out has a zero gradient, and its moments decay).
// Throws std::invalid_argument for another name.
std::unique_ptr<InnerOptimizer> make_inner_optimizer(const DilocoPolicy& policy, size_t parameters,
                                                     int workers);

}  // namespace testbed
