#include "agent/protocols/allreduce/sum_each_clock.h"

namespace testbed {

void SumEachClock::step(uint64_t, const SparseUpdate& u) {
  update_.assign(w_.size(), 0.0f);
  if (u.keys.empty()) {
    update_ = u.values;
  } else {
    for (size_t i = 0; i < u.keys.size(); ++i) update_[u.keys[i]] += u.values[i];
  }
}

std::optional<Reduction> SumEachClock::after_compute(uint64_t clock, bool) {
  return Reduction{std::move(update_), clock + 1};
}

void SumEachClock::reduced(const std::vector<float>& sum) {
  for (size_t k = 0; k < w_.size(); ++k) w_[k] += sum[k];
}

}  // namespace testbed
