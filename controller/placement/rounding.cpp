#include "controller/placement/rounding.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace testbed::placement {

double uniform01(std::mt19937_64& engine) {
  constexpr double kTwoToMinus53 = 1.0 / 9007199254740992.0;  // 2^-53
  return static_cast<double>(engine() >> 11) * kTwoToMinus53;
}

std::vector<size_t> draw_paths(const LpSolution& lp, std::mt19937_64& engine) {
  std::vector<size_t> chosen;
  for (const auto& weights : lp.z) {
    std::vector<double> w(weights.size());
    std::transform(weights.begin(), weights.end(), w.begin(),
                   [](double x) { return std::max(0.0, x); });
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    // Draw even when the sum is 0, so that every flow takes one number from the engine
    // and the draws of later flows do not depend on it.
    const double u = uniform01(engine) * total;
    size_t pick = 0;
    if (total > 0) {
      double cumulative = 0;
      pick = w.size() - 1;  // u < total, but rounding may leave it past the last bound
      for (size_t p = 0; p < w.size(); ++p) {
        cumulative += w[p];
        if (u < cumulative && w[p] > 0) {
          pick = p;
          break;
        }
      }
      while (w[pick] <= 0 && pick > 0) --pick;
    }
    chosen.push_back(pick);
  }
  return chosen;
}

FixedPaths rate_fixed_paths(const std::vector<const Path*>& chosen, const CapacityRows& rows,
                            double model_bits) {
  FixedPaths out;
  out.row_loads.assign(rows.size(), 0.0);
  for (const Path* p : chosen)
    for (size_t row : rows.rows_of(*p)) out.row_loads[row] += p->hops();
  out.m = std::numeric_limits<double>::infinity();
  for (size_t row = 0; row < rows.size(); ++row)
    if (out.row_loads[row] > 0)
      out.m = std::min(out.m, rows.capacity_bps(row) / (model_bits * out.row_loads[row]));
  for (const Path* p : chosen) out.rate_bps.push_back(p->hops() * model_bits * out.m);
  return out;
}

}  // namespace testbed::placement
