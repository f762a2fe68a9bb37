// APSP's Problem 4 with the server fixed at v, solved by GLPK's simplex: maximize m (one
// over the one-way time) over the fractional path weights z_fp, subject to
//   sum over flows f and paths p through row e of |p|·D·z_fp <= B_e   (every row e)
//   sum over p of z_fp = m                                           (every flow f)
//   z >= 0.
// The model size is taken as the unit of data (D = 1, capacities in models per second):
// coefficients stay near 1, which the simplex's tolerances are made for.
#pragma once

#include <vector>

#include "controller/placement/capacity_rows.h"
#include "controller/placement/placement_graph.h"

namespace testbed::placement {

struct FlowPaths {
  int worker = 0;
  std::vector<Path> paths;
};

struct LpSolution {
  double m = 0;                        // models per second, one way
  std::vector<std::vector<double>> z;  // per flow, per path: z_fp
};

// Throws std::runtime_error naming the GLPK call that failed.
LpSolution solve_problem4(const std::vector<FlowPaths>& flows, const CapacityRows& rows,
                          double model_bits);

}  // namespace testbed::placement
