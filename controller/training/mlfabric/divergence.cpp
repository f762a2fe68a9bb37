#include "controller/training/mlfabric/divergence.h"

#include <algorithm>

namespace testbed {

DivergenceReport measure_divergence(const std::vector<ApplyRecord>& server,
                                    const std::vector<ApplyRecord>& replica,
                                    const std::vector<double>& norms, uint64_t div_max) {
  // prefix[p]: the sum of the norms of places 0 .. p - 1.
  std::vector<double> prefix(1, 0.0);
  for (double n : norms) prefix.push_back(prefix.back() + n);
  const auto sum_of = [&](uint64_t from, uint64_t to) {  // places from .. to - 1
    const auto clamp = [&](uint64_t p) { return std::min<uint64_t>(p, prefix.size() - 1); };
    return prefix[clamp(to)] - prefix[clamp(from)];
  };
  DivergenceReport r;
  size_t next = 0;
  uint64_t replica_has = 0;
  for (const auto& s : server) {
    // An apply at the same instant counts as before: the replica's report of it came first.
    while (next < replica.size() && replica[next].ns <= s.ns) replica_has = replica[next++].applied;
    const uint64_t lead = s.applied > replica_has ? s.applied - replica_has : 0;
    ++r.checks;
    if (lead > div_max) ++r.over_bound;
    if (lead > r.max_lead) {
      r.max_lead = lead;
      r.max_lead_at_ns = s.ns;
    }
    if (lead > 0) r.max_norm_bound = std::max(r.max_norm_bound, sum_of(replica_has, s.applied));
  }
  return r;
}

}  // namespace testbed
