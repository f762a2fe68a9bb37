#include "controller/placement/apsp.h"

#include <cmath>
#include <limits>
#include <random>

#include "controller/placement/placement_lp.h"
#include "controller/placement/rounding.h"

namespace testbed::placement {
namespace {

// Theorem 2: with probability >= 1 - 1/n^2 no row is loaded beyond (1 + rho)·B_e, where
// rho = (2 ln n + 2 sqrt(ln^2 n + 2 alpha ln n)) / alpha and alpha = min B_e / (|p|·D·m*)
// over the rows and the paths the LP uses on them.
double theorem2_rho(const std::vector<FlowPaths>& flows, const LpSolution& lp,
                    const CapacityRows& rows, double model_bits, int n) {
  // The simplex reports zero weights as values within its tolerance of zero.
  constexpr double kUsed = 1e-9;
  double alpha = std::numeric_limits<double>::infinity();
  for (size_t f = 0; f < flows.size(); ++f)
    for (size_t p = 0; p < flows[f].paths.size(); ++p) {
      if (lp.z[f][p] <= kUsed * lp.m) continue;
      const Path& path = flows[f].paths[p];
      for (size_t row : rows.rows_of(path))
        alpha = std::min(alpha, rows.capacity_bps(row) / (path.hops() * model_bits * lp.m));
    }
  const double ln = std::log(static_cast<double>(n));
  return (2 * ln + 2 * std::sqrt(ln * ln + 2 * alpha * ln)) / alpha;
}

}  // namespace

Candidate place_at(const PlacementGraph& g, int server, double model_bits,
                   const PlacementOptions& options) {
  const CapacityRows rows(g, options.capacity);
  std::vector<FlowPaths> flows;
  Candidate c;
  c.server = server;
  for (int u = 0; u < g.nodes(); ++u) {
    if (u == server) continue;
    flows.push_back({u, simple_paths(g, u, server)});
    c.path_columns += flows.back().paths.size();
  }
  const LpSolution lp = solve_problem4(flows, rows, model_bits);
  c.lp_m = lp.m;
  c.rho = theorem2_rho(flows, lp, rows, model_bits, g.nodes());
  // One engine per candidate, seeded by (seed, server): a candidate's paths do not depend
  // on which others were computed. The multiplier is the 64-bit golden ratio, which spreads
  // nearby seeds apart.
  std::mt19937_64 engine(options.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(server));
  FixedPaths best;
  std::vector<size_t> best_pick;
  for (int d = 0; d < std::max(1, options.draws); ++d) {
    const std::vector<size_t> pick = draw_paths(lp, engine);
    std::vector<const Path*> chosen;
    for (size_t f = 0; f < flows.size(); ++f) chosen.push_back(&flows[f].paths[pick[f]]);
    FixedPaths rated = rate_fixed_paths(chosen, rows, model_bits);
    if (best_pick.empty() || rated.m > best.m) {
      best = std::move(rated);
      best_pick = pick;
    }
  }
  c.epoch_s = best.epoch_s();
  c.load_factor = lp.m / best.m;  // m' = m* / (max row load at m* over B_e)
  for (size_t f = 0; f < flows.size(); ++f)
    c.flows.push_back({flows[f].worker, flows[f].paths[best_pick[f]], best.rate_bps[f]});
  return c;
}

PlacementResult place(const PlacementGraph& g, double model_bits, const PlacementOptions& options) {
  PlacementResult r;
  double sum = 0;
  for (int v = 0; v < g.nodes(); ++v) {
    r.candidates.push_back(place_at(g, v, model_bits, options));
    sum += r.candidates.back().epoch_s;
    if (r.candidates.back().epoch_s < r.candidates[static_cast<size_t>(r.apsp)].epoch_s) r.apsp = v;
  }
  r.random_mean_s = sum / g.nodes();
  r.most_connected = most_connected(g);
  return r;
}

int most_connected(const PlacementGraph& g) {
  int best = 0;
  for (int v = 1; v < g.nodes(); ++v) {
    const int dv = g.degree(v), db = g.degree(best);
    if (dv > db || (dv == db && g.incident_bps(v) > g.incident_bps(best))) best = v;
  }
  return best;
}

CapacityModel capacity_model_from(const std::string& name) {
  return name == "directed" ? CapacityModel::kDirected : CapacityModel::kUndirected;
}

const char* capacity_model_name(CapacityModel m) {
  return m == CapacityModel::kUndirected ? "undirected" : "directed";
}

}  // namespace testbed::placement
