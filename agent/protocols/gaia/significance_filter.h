// Gaia's significance filter (Sec. 3.3 and 4.2), one per data center's server: local
// updates accumulate per parameter; an accumulated update is significant when
// |accumulated / current value| exceeds the threshold, which starts at v and decays as
// v / sqrt(t) with the clock t so that the replicas converge. A significant update is sent
// to every other data center and its accumulator reset; the rest wait, still accumulating.
//
// The soft threshold (Sec. 4.3) is the best-effort one: lowered while the WAN is idle, so
// spare bandwidth carries updates that are close to significant; back at the hard
// threshold as soon as a mirror's link has data waiting. Pure: no transport.
#pragma once

#include <cstdint>
#include <vector>

#include "agent/jobs/job.h"

namespace testbed {

struct FilterCounts {
  // (parameter, clock) pairs with a nonzero local update: a parameter that several local
  // workers update in one clock (SSP inside a data center) counts once, as under BSP, where
  // their updates arrive summed.
  uint64_t updates = 0;
  uint64_t significant = 0;  // accumulated updates sent because they passed the hard threshold
  uint64_t soft = 0;         // sent because they passed the soft one only
};

struct Significant {
  std::vector<uint32_t> keys;  // sorted
  std::vector<float> deltas;   // the accumulated update of each key
};

class SignificanceFilter {
 public:
  // `threshold` is v as a fraction (0.01 for 1%); `soft` enables the soft threshold.
  SignificanceFilter(size_t parameters, double threshold, bool soft);

  // The local update of one clock (dense when keys is empty).
  void accumulate(const SparseUpdate& u);
  // The hard threshold at clock t >= 1: v / sqrt(t).
  double hard_threshold(uint64_t clock) const;
  double soft_threshold(uint64_t clock) const { return hard_threshold(clock) * soft_factor_; }
  // Takes the significant accumulated updates at the end of clock t (>= 1) against the
  // current values, and resets their accumulators.
  Significant take(const std::vector<float>& values, uint64_t clock);
  // At the end of every clock: whether every mirror's link had nothing waiting. Lowers the
  // soft threshold while idle, restores it at once when not.
  void wan_idle(bool idle);

  const FilterCounts& counts() const { return counts_; }
  double soft_factor() const { return soft_factor_; }

 private:
  std::vector<float> accumulated_;
  std::vector<uint32_t> touched_;  // keys with a nonzero accumulator, unsorted
  std::vector<bool> is_touched_;
  std::vector<bool> updated_this_clock_;
  std::vector<uint32_t> updated_list_;  // keys updated since the last take
  double threshold_;
  bool soft_;
  double soft_factor_ = 1.0;  // soft = hard * factor
  FilterCounts counts_;
};

}  // namespace testbed
