// A node's routes as a router would hold them: the fewest prefixes that forward every
// destination the way its own route does. The route book gives a node one route per other
// node (999 in each namespace of a 1000-node lab, 999,000 in all, and the kernel's FIB
// inserts were most of `up`); a star's leaf needs one, and a ring with chords about a third
// (docs/benchmarks.md).
//
// The algorithm is ORTC, the optimal routing table constructor (Draves, King,
// Venkatachary and Zill, "Constructing Optimal IP Routing Tables", INFOCOM 1999): over the
// binary trie of the destinations, each subtree's set of next hops that could serve it
// whole is found from the leaves up, and a prefix is written from the root down only where
// the next hop inherited from above is not in that set. The result is the smallest table
// whose longest-prefix match gives every destination its route.
//
// Choice: an address that is no destination (this node's own, one no node has) is a
// "don't care": the aggregate covering it may forward it anywhere, as a router's
// aggregate does. Such an address is never one a lab's process talks to, and the node's
// own is delivered locally before any route. Prefixes are never shorter than the shortest
// prefix holding every destination, so nothing outside the lab's addresses is routed.
// Pure: no kernel.
#pragma once

#include <vector>

#include "netns/kernel.h"

namespace testbed {

// A destination and its next hop as a number: routes with the same number forward alike.
struct HopOf {
  Ipv4Prefix dst;
  int hop = 0;
};
struct HeldPrefix {
  Ipv4Prefix dst;
  int hop = 0;
  auto operator<=>(const HeldPrefix&) const = default;
};

// The core, over numbered next hops (the route book numbers them by link, so no route is
// written out before it is known to be needed). Where several hops could serve a prefix,
// the smallest number is taken: the same table every time. Sorted by prefix.
std::vector<HeldPrefix> aggregate_hops(std::vector<HopOf> destinations);

// `routes`: one per destination (any prefix length; each a whole prefix, none overlapping
// another), sorted or not. The result, sorted by prefix, forwards every address of each
// route's prefix through that route's next hop (via, dev, src).
std::vector<RouteSpec> aggregate_routes(const std::vector<RouteSpec>& routes);

// The route longest-prefix match picks for `address` among `table`; nullptr when none
// covers it. For tests and for `status`.
const RouteSpec* longest_match(const std::vector<RouteSpec>& table, Ipv4Address address);

}  // namespace testbed
