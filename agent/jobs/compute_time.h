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

// MLfabric's compute settings (Sec. 7): each iteration a worker is slowed by `factor` with
// probability `share`, independently of the others and of its other iterations.
struct Stragglers {
  double share = 0, factor = 1;
};
// "10%:2" (or "0.1:2"); throws std::invalid_argument.
Stragglers parse_stragglers(const std::string& text);
// Whether worker (node, iteration) of `seed` straggles: a draw of its own, apart from the
// compute time's, so adding stragglers leaves every other draw of a run as it was.
bool draw_straggler(const Stragglers& s, uint64_t seed, int node, uint64_t iteration);

}  // namespace testbed
