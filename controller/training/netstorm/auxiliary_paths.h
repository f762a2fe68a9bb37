// NetStorm's auxiliary path search (Sec. VI-B, Alg. 3). For a tree edge from -> to, the
// primary path is the direct send; the auxiliary routes are found by removing the edges
// already used (first the primary one) and taking the fastest remaining path, again and
// again until none is left. Routes are ranked by transfer time, fastest first. Pure.
#pragma once

#include <vector>

#include "agent/protocols/tree/sync_policy.h"

namespace testbed {

// Routes from `from` to `to` over physical links other than from -> to, pairwise
// edge-disjoint, fastest first (cost: the sum over hops of 1 / throughput). Routes of more
// than `max_nodes` nodes are left out.
std::vector<std::vector<int>> auxiliary_routes(const ThroughputGraph& g, int from, int to,
                                               size_t max_nodes);

// Fills policy.aux with the routes of every tree edge, both directions (up for partial
// sums, down for results), keeping the knobs already set there.
void add_auxiliary_paths(SyncPolicy& policy, const ThroughputGraph& g, AuxiliaryPaths knobs);

}  // namespace testbed
