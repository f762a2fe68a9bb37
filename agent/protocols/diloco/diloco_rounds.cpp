#include "agent/protocols/diloco/diloco_rounds.h"

#include <algorithm>
#include <stdexcept>

#include "agent/contracts/diloco/diloco_report.h"

namespace testbed {

void DilocoRounds::configure(const TrainingSetup& s) {
  policy_ = diloco_policy_from_json(s.policy);
}

void DilocoRounds::start(std::vector<float> initial, int workers) {
  workers_ = workers;
  theta_ = std::move(initial);
  local_ = theta_;
  inner_ = make_inner_optimizer(policy_, theta_.size(), workers);
  outer_ = std::make_unique<NesterovOuter>(policy_.outer_lr, policy_.outer_momentum, theta_.size());
}

void DilocoRounds::step(uint64_t, const SparseUpdate& update) {
  inner_->step(local_, update);
}

std::optional<Reduction> DilocoRounds::after_compute(uint64_t clock, bool last) {
  if (++steps_in_round_ < policy_.inner_steps && !last) return std::nullopt;
  return Reduction{pseudo_gradient(theta_, local_), clock + 1, last};
}

void DilocoRounds::reduced(const std::vector<float>& sum) {
  outer_->step(theta_, sum, workers_);
  local_ = theta_;  // the next round starts from the shared model; the inner state stays
  ++round_;
  steps_in_round_ = 0;
}

bool DilocoRounds::away(int node) const {
  return std::find(policy_.away.begin(), policy_.away.end(), node) != policy_.away.end();
}

// The shared model, then the outer momentum (as floats: the wire's values).
std::vector<float> DilocoRounds::shared_state() const {
  std::vector<float> s = theta_;
  for (double m : outer_->momentum()) s.push_back(static_cast<float>(m));
  return s;
}

void DilocoRounds::adopt(const std::vector<float>& state) {
  if (state.size() != 2 * theta_.size()) throw std::runtime_error("diloco: a model of wrong size");
  theta_.assign(state.begin(), state.begin() + static_cast<std::ptrdiff_t>(theta_.size()));
  outer_->set_momentum({state.begin() + static_cast<std::ptrdiff_t>(theta_.size()), state.end()});
  local_ = theta_;
  steps_in_round_ = 0;
}

void DilocoRounds::report(nlohmann::json& stats, uint64_t dropped) const {
  write_diloco_section(stats, {round_, dropped});
}

}  // namespace testbed
