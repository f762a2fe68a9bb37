#include "controller/training/loss_curve.h"

#include <cmath>
#include <stdexcept>

namespace testbed {

void LossCurve::add(int worker, double t_s, double loss) {
  if (gone_.at(static_cast<size_t>(worker))) return;
  latest_.at(static_cast<size_t>(worker)) = loss;
  if (const auto mean = current()) points_.push_back({t_s, *mean});
}

std::optional<double> LossCurve::current() const {
  double sum = 0;
  size_t counted = 0;
  for (size_t w = 0; w < latest_.size(); ++w) {
    if (gone_[w]) continue;
    if (!latest_[w]) return std::nullopt;
    sum += *latest_[w];
    ++counted;
  }
  return counted == 0 ? std::nullopt : std::optional<double>(sum / static_cast<double>(counted));
}

std::optional<double> LossCurve::time_to(double target) const {
  for (const auto& p : points_) {
    if (p.loss <= target) return p.t_s;
  }
  return std::nullopt;
}

nlohmann::json LossCurve::to_json() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& p : points_) j.push_back({p.t_s, p.loss});
  return j;
}

std::optional<size_t> converged_at(const std::vector<double>& objective, double change,
                                   size_t over) {
  for (size_t c = over; c < objective.size(); ++c) {
    const double before = objective[c - over];
    if (before != 0 && std::fabs(objective[c] - before) / std::fabs(before) < change) return c;
  }
  return std::nullopt;
}

}  // namespace testbed
