// Emulated compute time per worker and iteration: fixed, or drawn uniformly from a range
// by a function of (seed, node, iteration) only, so a run repeats exactly and the nodes'
// draws are independent (stragglers come and go).
#pragma once

#include <cstdint>
#include <string>

namespace testbed {

struct ComputeRange {
  int min_ms = 0, max_ms = 0;
};
// "200" or "150-250"; throws std::invalid_argument.
ComputeRange parse_compute_range(const std::string& text);
int draw_compute_ms(const ComputeRange& range, uint64_t seed, int node, uint64_t iteration);

}  // namespace testbed
