#include "agent/protocols/gaia/significance_filter.h"

#include <algorithm>
#include <cmath>

namespace testbed {
namespace {

// The paper gives no schedule for the soft threshold. Halving it per idle clock reaches
// the floor in four clocks; the floor, a sixteenth of the hard threshold, keeps an idle
// WAN from carrying every rounding-level change.
constexpr double kSoftStep = 0.5, kSoftFloor = 1.0 / 16;

}  // namespace

SignificanceFilter::SignificanceFilter(size_t parameters, double threshold, bool soft)
    : accumulated_(parameters, 0.0f),
      is_touched_(parameters, false),
      updated_this_clock_(parameters, false),
      threshold_(threshold),
      soft_(soft) {}

void SignificanceFilter::accumulate(const SparseUpdate& u) {
  for (size_t i = 0; i < u.values.size(); ++i) {
    if (u.values[i] == 0.0f) continue;
    const uint32_t key = u.keys.empty() ? static_cast<uint32_t>(i) : u.keys[i];
    accumulated_.at(key) += u.values[i];
    if (!updated_this_clock_[key]) {
      updated_this_clock_[key] = true;
      updated_list_.push_back(key);
      ++counts_.updates;
    }
    if (!is_touched_[key]) {
      is_touched_[key] = true;
      touched_.push_back(key);
    }
  }
}

double SignificanceFilter::hard_threshold(uint64_t clock) const {
  return threshold_ / std::sqrt(static_cast<double>(std::max<uint64_t>(1, clock)));
}

Significant SignificanceFilter::take(const std::vector<float>& values, uint64_t clock) {
  for (uint32_t key : updated_list_) updated_this_clock_[key] = false;
  updated_list_.clear();
  const double hard = hard_threshold(clock), soft = soft_ ? soft_threshold(clock) : hard;
  std::sort(touched_.begin(), touched_.end());
  Significant out;
  std::vector<uint32_t> kept;
  for (uint32_t key : touched_) {
    const double acc = accumulated_[key];
    // A parameter at zero is changed by any update: infinitely significant.
    const double significance = values[key] == 0.0f ? INFINITY : std::fabs(acc / values[key]);
    if (acc != 0 && significance > soft) {
      out.keys.push_back(key);
      out.deltas.push_back(static_cast<float>(acc));
      ++(significance > hard ? counts_.significant : counts_.soft);
      accumulated_[key] = 0.0f;
      is_touched_[key] = false;
    } else {
      kept.push_back(key);
    }
  }
  touched_.swap(kept);
  return out;
}

void SignificanceFilter::wan_idle(bool idle) {
  if (!soft_) return;
  soft_factor_ = idle ? std::max(kSoftFloor, soft_factor_ * kSoftStep) : 1.0;
}

}  // namespace testbed
