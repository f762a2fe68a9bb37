// How far the replica fell behind the server over a run (Sec. 5.3), from what each
// recorded: after every update it applied, how many places it had applied and when
// (CLOCK_MONOTONIC; both run on this machine, so their times compare). The server's lead
// only grows when the server applies, so it is checked at each of the server's applies
// against the replica's count at that instant. Beside the count, the paper's estimate of
// ||w_s - w_r|| (Eq. 11): with no momentum at the server (w += u) the Cauchy-Schwarz bound
// is the sum of the norms of the updates the replica lacks. Pure.
#pragma once

#include <cstdint>
#include <vector>

namespace testbed {

struct ApplyRecord {
  uint64_t applied = 0;  // places applied, after this apply
  int64_t ns = 0;        // when
};

struct DivergenceReport {
  uint64_t max_lead = 0;       // the server's greatest lead, in updates
  int64_t max_lead_at_ns = 0;  // when it was reached
  double max_norm_bound = 0;   // Eq. 11 at the moments the server applied, its greatest
  uint64_t checks = 0;         // the server's applies checked
  uint64_t over_bound = 0;     // of those, with a lead above div_max
};

// `norms[p]`: the L2 norm of the update at place p (0 where unknown). Both logs in time order.
DivergenceReport measure_divergence(const std::vector<ApplyRecord>& server,
                                    const std::vector<ApplyRecord>& replica,
                                    const std::vector<double>& norms, uint64_t div_max);

}  // namespace testbed
