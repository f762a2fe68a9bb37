// Every node's routes, kept as the rule that makes them rather than as records: static
// shortest paths over the links (routing.h). A lab of N nodes has N(N-1) routes: 999,000 at
// 1000 nodes, which as records with their paths made a 515 MB plan and a 3.6 GB `up`. The
// book holds the next-hop table and what a route is made of (addresses, link subnets,
// interface names) and writes out a route, or one node's routes, when asked. Pure data.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "controller/topology/routing.h"
#include "netns/kernel.h"

namespace testbed {

struct PlannedRoute {
  std::string node, destination;  // node names
  RouteSpec route;
  std::vector<std::string> path;  // node names from `node` to `destination`
  int64_t cost = 0;
};

// One-way delays along every route, in microseconds: d(src, dst), 0 on the diagonal and
// where unreachable. Held in 4 bytes a pair (a path's delay is far under the 35 minutes an
// int32 of microseconds holds; a sum beyond is held at the most it can): 400 MB at 10,000
// nodes, where rows of int64_t took twice that and a vector's header per row more.
class PathDelays {
 public:
  explicit PathDelays(size_t nodes) : n_(nodes), us_(nodes * nodes, 0) {}
  int64_t operator()(size_t src, size_t dst) const { return us_[src * n_ + dst]; }
  void set(size_t src, size_t dst, int64_t us) {
    us_[src * n_ + dst] = static_cast<int32_t>(std::min<int64_t>(us, INT32_MAX));
  }

 private:
  size_t n_;
  std::vector<int32_t> us_;
};

class RouteBook {
 public:
  struct Node {
    std::string name;
    Ipv4Address address;
  };
  struct Link {
    size_t a = 0, b = 0;  // node indices
    Ipv4Prefix subnet;    // the link's /30: a is .1, b is .2
    std::string if_a, if_b;
    int64_t a2b_delay_us = 0, b2a_delay_us = 0;
  };

  RouteBook() = default;
  RouteBook(RouteMetric metric, std::vector<Node> nodes, std::vector<Link> links);

  RouteMetric metric() const { return metric_; }
  // How the routes are made, for people and for the plan's JSON.
  std::string rule() const;
  const RoutingTable& table() const { return table_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::optional<size_t> index(const std::string& node) const;

  size_t count() const;                 // routed pairs
  size_t count_from(size_t src) const;  // the routes of one node
  // The route from src to dst with its path; nullopt when dst is unreachable (or src).
  std::optional<PlannedRoute> route(size_t src, size_t dst) const;
  // The kernel's route from src to dst alone (no path); nullopt when unreachable.
  std::optional<RouteSpec> spec_to(size_t src, size_t dst) const;
  // One route per reachable destination of src, as the book holds them.
  std::vector<RouteSpec> specs_from(size_t src) const;
  // What the kernel of src holds: specs_from aggregated as a router would hold them
  // (route_aggregation.h), forwarding every destination the same way.
  std::vector<RouteSpec> kernel_routes_from(size_t src) const;
  // The sum over every path of the given per-link figures (a->b, b->a), in the same unit:
  // 0 on the diagonal and where unreachable. Each node is visited once per destination.
  PathDelays path_delays_us(const std::vector<std::pair<int64_t, int64_t>>& per_link) const;

  // The routes once a routing protocol has converged around `dead` links (link indices):
  // shortest paths over the links left. A destination they leave unreachable keeps this
  // book's route, which runs into the dead part and is black-holed there, as a WAN's
  // static default would be (docs/faults.md says why not to withdraw it).
  RouteBook avoiding(const std::set<size_t>& dead) const;

 private:
  RouteSpec spec(size_t src, size_t dst, size_t link) const;  // src's route to dst via link

  RouteMetric metric_ = RouteMetric::kHops;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::map<std::string, size_t> by_name_;
  RoutingTable table_;
};

nlohmann::json planned_route_to_json(const PlannedRoute& r);

// The routes that differ between two books of one lab (same nodes and links), as `to`
// has them, by source node: what a convergence replaces in each namespace.
std::map<size_t, std::vector<RouteSpec>> changed_routes(const RouteBook& from, const RouteBook& to);

// What the kernels must change to go from `from`'s aggregated tables to `to`'s, for each
// node whose routes changed: the prefixes to install or replace, then those to withdraw.
struct KernelRouteChange {
  std::vector<RouteSpec> replace;
  std::vector<Ipv4Prefix> withdraw;
};
std::map<size_t, KernelRouteChange> changed_kernel_routes(const RouteBook& from,
                                                          const RouteBook& to);

}  // namespace testbed
