#include "controller/placement/rate_redraws.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "controller/placement/apsp.h"
#include "controller/placement/rounding.h"

namespace testbed::placement {
namespace {

// The paper's range of link rates (Sec. V: 500 Mbit/s to 5 Gbit/s), redrawn in steps of
// 50 Mbit/s, the rounding of the Internet2 profile's rates.
constexpr double kMinRedrawMbit = 500, kMaxRedrawMbit = 5000, kRedrawStepMbit = 50;

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double at = p * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(at));
  const size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

}  // namespace

nlohmann::json rate_redraws(PlacementGraph g, double model_bits, const PlacementOptions& o, int n) {
  std::vector<double> vs_random, vs_mc;
  nlohmann::json draws = nlohmann::json::array();
  const auto steps = static_cast<uint64_t>((kMaxRedrawMbit - kMinRedrawMbit) / kRedrawStepMbit) + 1;
  for (int r = 1; r <= n; ++r) {
    std::mt19937_64 engine(o.seed * 1000003ULL + static_cast<uint64_t>(r));  // a prime apart
    for (auto& l : g.links) {
      const auto k = static_cast<uint64_t>(uniform01(engine) * static_cast<double>(steps));
      l.a2b_bps = l.b2a_bps = (kMinRedrawMbit + kRedrawStepMbit * static_cast<double>(k)) * 1e6;
    }
    const PlacementResult p = place(g, model_bits, o);
    const double apsp = p.candidates[static_cast<size_t>(p.apsp)].epoch_s;
    const double mc = p.candidates[static_cast<size_t>(p.most_connected)].epoch_s;
    vs_random.push_back(1 - apsp / p.random_mean_s);
    vs_mc.push_back(1 - apsp / mc);
    draws.push_back({{"redraw", r},
                     {"apsp", g.names[static_cast<size_t>(p.apsp)]},
                     {"apsp_s", apsp},
                     {"most_connected_s", mc},
                     {"random_mean_s", p.random_mean_s},
                     {"reduction_vs_random", vs_random.back()},
                     {"reduction_vs_most_connected", vs_mc.back()}});
  }
  const auto spread = [](const std::vector<double>& v) {
    return nlohmann::json{{"median", percentile(v, 0.5)},
                          {"p10", percentile(v, 0.1)},
                          {"p90", percentile(v, 0.9)},
                          {"min", percentile(v, 0)},
                          {"max", percentile(v, 1)}};
  };
  return {{"redraws", draws},
          {"rates", "each link, both ways, uniform over 500-5000 Mbit/s in 50 Mbit/s steps"},
          {"reduction_vs_random", spread(vs_random)},
          {"reduction_vs_most_connected", spread(vs_mc)}};
}

}  // namespace testbed::placement
