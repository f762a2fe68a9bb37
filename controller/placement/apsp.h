// APSP's Algorithm 2: for every candidate server v, solve Problem 4 over all simple paths
// (placement_lp.h), round to one path per flow (rounding.h) and rate the paths by the
// closed form; the placement is the v of the least epoch time T_v = 2 / m'. And the
// paper's baselines: the most-connected node, and a random node (its expectation, the
// mean of T_v over every v).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/placement/capacity_rows.h"
#include "controller/placement/placement_graph.h"

namespace testbed::placement {

struct PlacementOptions {
  CapacityModel capacity = CapacityModel::kUndirected;
  uint64_t seed = 1;
  int draws = 1;  // best of this many roundings (the paper draws once)
};

struct RoutedFlow {
  int worker = 0;
  Path path;            // worker ... server; the pull runs it backwards
  double rate_bps = 0;  // b_f, held on every hop
};

struct Candidate {
  int server = 0;
  size_t path_columns = 0;  // the LP's z columns
  double lp_m = 0;          // m*, models per second one way
  double epoch_s = 0;       // T_v = 2 / m' of the rounded paths
  double load_factor = 0;   // max over rows of the rounded paths' load at m*, over B_e
  double rho = 0;           // Theorem 2's bound on load_factor - 1 (w.p. >= 1 - 1/n^2)
  std::vector<RoutedFlow> flows;
  double lp_bound_s() const { return 2.0 / lp_m; }
};

// APSP with the server fixed at `server`.
Candidate place_at(const PlacementGraph& g, int server, double model_bits,
                   const PlacementOptions& options);

struct PlacementResult {
  std::vector<Candidate> candidates;  // by server node
  int apsp = 0;                       // v* = argmin T_v (ties: the lower id)
  int most_connected = 0;
  double random_mean_s = 0;  // the random baseline: mean of T_v over every v
};

PlacementResult place(const PlacementGraph& g, double model_bits, const PlacementOptions& options);

// The paper's "most connected" server: the most links; ties go to the most incident
// capacity (both directions), then to the lower id. Not best_connected() of the tree
// strategies, which ranks by capacity alone.
int most_connected(const PlacementGraph& g);

const char* capacity_model_name(CapacityModel m);  // "undirected", "directed"
// "directed" -> kDirected; anything else (checked by the caller) -> kUndirected.
CapacityModel capacity_model_from(const std::string& name);

}  // namespace testbed::placement
