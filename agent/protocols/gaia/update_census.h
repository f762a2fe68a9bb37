// The paper's Fig. 5 measurement (Sec. 3.3), taken on every run: how large each worker's
// update is against the parameter's value when its data center's server receives it. Gaia
// counts "all the updates sent from worker machines to parameter servers" and calls one
// insignificant at threshold S when it changes its parameter by less than S (95.2% of
// MF's at 1%). That is a property of the job, not of the filter: the filter compares a
// data center's updates summed over a clock against v/sqrt(t), so the two shares differ,
// and a run reports both side by side.
//
// Counts are kept per clock so that the controller can give the share over the whole run
// and over its last clocks, where the paper's claim of small updates should hold best.
// Pure: fed the updates and the values they are measured against.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "agent/contracts/gaia/gaia_report.h"
#include "agent/jobs/job.h"

namespace testbed {

class UpdateCensus {
 public:
  // Fig. 5's thresholds, 0.01% to 10%, with the sensitivity thresholds (0.5, 2,
  // 5%) among them; as fractions of the parameter's value.
  static constexpr std::array<double, 8> kThresholds{1e-4, 5e-4, 1e-3, 5e-3,
                                                     1e-2, 2e-2, 5e-2, 1e-1};

  // One worker's update of clock `clock` (0-based), measured against `values`. Keys whose
  // update is zero are no update. A parameter at zero is changed by any update: counted
  // as significant at every threshold.
  void count(const SparseUpdate& u, const std::vector<float>& values, uint64_t clock);

  // The thresholds, the updates per clock, and per threshold those below it per clock.
  GaiaSection::WorkerUpdates section() const;

 private:
  void grow(uint64_t clock);
  std::vector<uint64_t> updates_;                                // per clock
  std::array<std::vector<uint64_t>, kThresholds.size()> below_;  // per threshold, per clock
};

}  // namespace testbed
