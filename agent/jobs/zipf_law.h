// A popularity law over n things, shaped like real rating data: Zipf, its exponent solved
// so that the most popular thing has `top_over_mean` times the mean thing's share, and
// the ranks mapped to ids by a seeded permutation, so that popular things spread over
// every server shard's key range. Both matrix-factorization jobs draw from it.
#pragma once

#include <cstdint>
#include <vector>

namespace testbed {

class ZipfLaw {
 public:
  // `salt` keeps the permutations of two laws of one seed apart.
  ZipfLaw(int n, double top_over_mean, uint64_t seed, uint64_t salt);
  // The id drawn by a uniform `u` in (0, 1).
  uint32_t draw(double u) const;
  int size() const { return static_cast<int>(cdf_.size()); }

 private:
  std::vector<double> cdf_;  // by rank
  std::vector<uint32_t> id_of_rank_;
};

}  // namespace testbed
