#include "agent/protocols/gaia/update_census.h"

#include <cmath>

namespace testbed {

void UpdateCensus::grow(uint64_t clock) {
  if (clock < updates_.size()) return;
  updates_.resize(clock + 1, 0);
  for (auto& b : below_) b.resize(clock + 1, 0);
}

void UpdateCensus::count(const SparseUpdate& u, const std::vector<float>& values, uint64_t clock) {
  grow(clock);
  for (size_t i = 0; i < u.values.size(); ++i) {
    if (u.values[i] == 0.0f) continue;
    const uint32_t key = u.keys.empty() ? static_cast<uint32_t>(i) : u.keys[i];
    const float value = values.at(key);
    ++updates_[clock];
    if (value == 0.0f) continue;
    const double change = std::fabs(static_cast<double>(u.values[i]) / value);
    for (size_t t = 0; t < kThresholds.size(); ++t)
      if (change < kThresholds[t]) ++below_[t][clock];
  }
}

GaiaSection::WorkerUpdates UpdateCensus::section() const {
  return {{kThresholds.begin(), kThresholds.end()}, updates_, {below_.begin(), below_.end()}};
}

}  // namespace testbed
