// Static shortest-path routing over the topology graph. For every destination the planner
// needs each node's next hop; computing one shortest-path tree per destination (Dijkstra
// from the destination over reversed edges) makes the hop-by-hop routes consistent: every
// node on a path forwards along the same path.
#pragma once

#include <cstdint>
#include <vector>

#include "controller/topology/topology.h"

namespace testbed {

struct NextHop {
  size_t node = SIZE_MAX;  // the neighbour to forward to; SIZE_MAX when unreachable
  size_t link = SIZE_MAX;  // the link that leads there
  int64_t cost = 0;        // path cost under the chosen metric (hops, or microseconds)
  int hops = 0;
};

// table[src][dst]: where src forwards packets for dst. table[n][n] is left unreachable.
using RoutingTable = std::vector<std::vector<NextHop>>;

// The graph routes are computed over: what a topology, or a plan read back from its JSON,
// says about its nodes and links. Weights are per direction, under the chosen metric.
struct RouteEdge {
  size_t a = 0, b = 0;
  int64_t a2b_weight = 1, b2a_weight = 1;
};
int64_t route_weight(RouteMetric metric, int64_t delay_us);

RoutingTable compute_routes(size_t nodes, const std::vector<RouteEdge>& links);
RoutingTable compute_routes(const Topology& topo);

// The node sequence from src to dst, both included; empty when unreachable.
std::vector<size_t> route_path(const RoutingTable& table, size_t src, size_t dst);

}  // namespace testbed
