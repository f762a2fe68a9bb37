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

// The graph routes are computed over: what a topology, or a plan read back from its JSON,
// says about its nodes and links. Weights are per direction, under the chosen metric.
struct RouteEdge {
  size_t a = 0, b = 0;
  int64_t a2b_weight = 1, b2a_weight = 1;
};
int64_t route_weight(RouteMetric metric, int64_t delay_us);

// Where every node forwards packets for every other: at(src, dst). A table of N nodes has
// N(N-1) entries, so each is held as the one thing it must say, the link it leaves by
// (4 bytes): the neighbour is that link's other end, and a path's cost and hops are summed
// along it when asked. At 10,000 nodes that is 400 MB, where whole NextHop records took
// 3.2 GB.
class RoutingTable {
 public:
  static constexpr uint32_t kUnreachable = UINT32_MAX;

  RoutingTable() = default;
  RoutingTable(size_t nodes, std::vector<RouteEdge> edges);

  size_t size() const { return n_; }
  const std::vector<RouteEdge>& edges() const { return edges_; }
  // The link src leaves by towards dst: an index into edges(), SIZE_MAX when unreachable
  // (always so for src == dst).
  size_t link(size_t src, size_t dst) const {
    const uint32_t l = link_[src * n_ + dst];
    return l == kUnreachable ? SIZE_MAX : l;
  }
  // The neighbour src forwards to for dst; SIZE_MAX when unreachable.
  size_t next(size_t src, size_t dst) const {
    const size_t l = link(src, dst);
    if (l == SIZE_MAX) return SIZE_MAX;
    return edges_[l].a == src ? edges_[l].b : edges_[l].a;
  }
  // The next hop with the path's cost and hop count, summed along it (one step per hop).
  NextHop at(size_t src, size_t dst) const;
  // Sends src's packets for dst over `link` (an index into edges()), as a rerouting does.
  void set_link(size_t src, size_t dst, size_t link) {
    link_[src * n_ + dst] = static_cast<uint32_t>(link);
  }

 private:
  size_t n_ = 0;
  std::vector<RouteEdge> edges_;
  std::vector<uint32_t> link_;  // row-major: src * n + dst
};

RoutingTable compute_routes(size_t nodes, const std::vector<RouteEdge>& links);
RoutingTable compute_routes(const Topology& topo);

// The node sequence from src to dst, both included; empty when unreachable.
std::vector<size_t> route_path(const RoutingTable& table, size_t src, size_t dst);

}  // namespace testbed
