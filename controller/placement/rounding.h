// APSP's randomized rounding and the closed form that rates fixed paths (Algorithm 2,
// steps 3-5), as reconstructed in the notes on the paper: every flow draws exactly one
// path, path p with probability z_fp / m*; then, with the paths fixed,
//   m' = min over rows e of B_e / (D · sum over flows through e of |p_f|),
//   b_f = |p_f| · D · m',   T = 2 / m'  (push, then pull).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "controller/placement/capacity_rows.h"
#include "controller/placement/placement_lp.h"

namespace testbed::placement {

// A uniform double in [0, 1) from the top 53 bits of one draw: std::uniform_real_distribution
// and std::discrete_distribution are implementation-defined, and a seed must give the same
// paths with every standard library.
double uniform01(std::mt19937_64& engine);

// One categorical draw per flow: the index of its path. Weights are clamped at 0 (the
// simplex leaves tiny negatives) and renormalised; a flow whose weights sum to 0 takes its
// first (shortest) path.
std::vector<size_t> draw_paths(const LpSolution& lp, std::mt19937_64& engine);

struct FixedPaths {
  double m = 0;                   // m', models per second one way
  std::vector<double> rate_bps;   // per flow: b_f
  std::vector<double> row_loads;  // per row: sum of |p_f| over its flows (in models)
  double epoch_s() const { return 2.0 / m; }
};

// The closed form for `chosen` paths (one per flow).
FixedPaths rate_fixed_paths(const std::vector<const Path*>& chosen, const CapacityRows& rows,
                            double model_bits);

}  // namespace testbed::placement
