#include "agent/jobs/zipf_law.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "agent/jobs/seeded.h"

namespace testbed {

ZipfLaw::ZipfLaw(int n, double top_over_mean, uint64_t seed, uint64_t salt) {
  cdf_.resize(static_cast<size_t>(n));
  const auto fill = [&](double exponent) {
    double sum = 0;
    for (int i = 0; i < n; ++i) cdf_[i] = sum += std::pow(i + 1.0, -exponent);
    for (auto& x : cdf_) x /= sum;
    return cdf_[0] * n;  // the top one over the mean
  };
  // top/mean grows with the exponent, from 1 at 0; bisection to 1e-6 (40 halvings).
  double lo = 0, hi = 4;
  for (int i = 0; i < 40; ++i) (fill((lo + hi) / 2) < top_over_mean ? lo : hi) = (lo + hi) / 2;
  fill(lo);
  id_of_rank_.resize(cdf_.size());
  for (int i = 0; i < n; ++i) id_of_rank_[i] = static_cast<uint32_t>(i);
  for (int i = n - 1; i > 0; --i) {
    const auto j = static_cast<int>(hashed_uniform(hash3(seed, salt, i)) * (i + 1));
    std::swap(id_of_rank_[i], id_of_rank_[j]);
  }
}

uint32_t ZipfLaw::draw(double u) const {
  const auto rank = std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin();
  return id_of_rank_[std::min<size_t>(static_cast<size_t>(rank), cdf_.size() - 1)];
}

}  // namespace testbed
