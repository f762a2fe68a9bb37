#include "agent/protocols/streaming_diloco/streaming_rounds.h"

#include <algorithm>
#include <stdexcept>

#include "agent/contracts/diloco/diloco_report.h"

namespace testbed {

void StreamingRounds::configure(const TrainingSetup& s) {
  policy_ = streaming_policy_from_json(s.policy);
  schedule_.emplace(policy_.diloco.inner_steps, policy_.fragments);
  iterations_ = static_cast<uint64_t>(std::max(s.iterations, 0));
}

void StreamingRounds::start(std::vector<float> initial, int workers) {
  workers_ = workers;
  theta_ = std::move(initial);
  local_ = theta_;
  inner_ = make_inner_optimizer(policy_.diloco, theta_.size(), workers);
  outer_.clear();
  for (int p = 0; p < policy_.fragments; ++p) {
    const auto [b, e] = schedule_->bounds(p, theta_.size());
    outer_.emplace_back(policy_.diloco.outer_lr, policy_.diloco.outer_momentum, e - b);
  }
}

void StreamingRounds::step(uint64_t, const SparseUpdate& update) {
  inner_->step(local_, update);
}

std::optional<Reduction> StreamingRounds::after_compute(uint64_t clock, bool) {
  const std::optional<int> p = schedule_->due_after(clock + 1);
  if (!p) return std::nullopt;
  const auto [b, e] = schedule_->bounds(*p, theta_.size());
  std::vector<float> delta(e - b);
  for (size_t k = b; k < e; ++k) delta[k - b] = theta_[k] - local_[k];
  in_flight_ = *p;
  return Reduction{std::move(delta), clock + 1 + static_cast<uint64_t>(policy_.overlap),
                   !sync_after(clock + 1)};
}

// Syncs come at least every H steps, so at most H steps are looked at.
bool StreamingRounds::sync_after(uint64_t step) const {
  const uint64_t last =
      std::min(iterations_, step + static_cast<uint64_t>(policy_.diloco.inner_steps));
  for (uint64_t t = step + 1; t <= last; ++t)
    if (schedule_->due_after(t)) return true;
  return false;
}

void StreamingRounds::reduced(const std::vector<float>& sum) {
  if (!in_flight_) throw std::logic_error("streaming diloco: a sum with no fragment in flight");
  const int p = *in_flight_;
  in_flight_.reset();
  const auto [b, e] = schedule_->bounds(p, theta_.size());
  std::vector<float> fragment(theta_.begin() + static_cast<std::ptrdiff_t>(b),
                              theta_.begin() + static_cast<std::ptrdiff_t>(e));
  outer_[static_cast<size_t>(p)].step(fragment, sum, workers_);
  const double alpha = policy_.mixing;
  for (size_t k = b; k < e; ++k) {
    theta_[k] = fragment[k - b];
    local_[k] = static_cast<float>(alpha * local_[k] + (1 - alpha) * theta_[k]);
  }
  ++outer_steps_;
}

bool StreamingRounds::away(int node) const {
  const auto& away = policy_.diloco.away;
  return std::find(away.begin(), away.end(), node) != away.end();
}

// The shared model, then each fragment's outer momentum in the fragments' order (together
// the model's size: a fragment's momentum is its slice's).
std::vector<float> StreamingRounds::shared_state() const {
  std::vector<float> s = theta_;
  for (const NesterovOuter& o : outer_)
    for (double m : o.momentum()) s.push_back(static_cast<float>(m));
  return s;
}

void StreamingRounds::adopt(const std::vector<float>& state) {
  const size_t n = theta_.size();
  if (state.size() != 2 * n) throw std::runtime_error("streaming diloco: a model of wrong size");
  theta_.assign(state.begin(), state.begin() + static_cast<std::ptrdiff_t>(n));
  for (int p = 0; p < policy_.fragments; ++p) {
    const auto [b, e] = schedule_->bounds(p, n);
    outer_[static_cast<size_t>(p)].set_momentum(
        {state.begin() + static_cast<std::ptrdiff_t>(n + b),
         state.begin() + static_cast<std::ptrdiff_t>(n + e)});
  }
  local_ = theta_;
  in_flight_.reset();
}

// DiLoCo's section, its outer steps counted per fragment (P to a full model's worth).
void StreamingRounds::report(nlohmann::json& stats, uint64_t dropped) const {
  write_diloco_section(stats, {outer_steps_, dropped});
}

}  // namespace testbed
