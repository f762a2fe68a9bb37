#include "controller/lab/route_book.h"

#include <algorithm>
#include <stdexcept>

#include "controller/lab/route_aggregation.h"
#include "controller/lab/step_json.h"

namespace testbed {

namespace {

// The graph of `links` less the `dead` ones. A dead link's edge is left out, not weighted
// up: a route must never be made to run over it.
std::vector<RouteEdge> edges_of(RouteMetric metric, const std::vector<RouteBook::Link>& links,
                                const std::set<size_t>& dead, std::vector<size_t>& link_of_edge) {
  std::vector<RouteEdge> edges;
  edges.reserve(links.size());
  for (size_t i = 0; i < links.size(); ++i) {
    if (dead.count(i)) continue;
    const RouteBook::Link& l = links[i];
    edges.push_back(
        {l.a, l.b, route_weight(metric, l.a2b_delay_us), route_weight(metric, l.b2a_delay_us)});
    link_of_edge.push_back(i);
  }
  return edges;
}

}  // namespace

RouteBook::RouteBook(RouteMetric metric, std::vector<Node> nodes, std::vector<Link> links)
    : metric_(metric), nodes_(std::move(nodes)), links_(std::move(links)) {
  for (size_t i = 0; i < nodes_.size(); ++i) by_name_[nodes_[i].name] = i;
  std::vector<size_t> link_of_edge;
  table_ = compute_routes(nodes_.size(), edges_of(metric_, links_, {}, link_of_edge));
}

RouteBook RouteBook::avoiding(const std::set<size_t>& dead) const {
  RouteBook out = *this;
  if (dead.empty()) return out;
  std::vector<size_t> link_of_edge;
  const RoutingTable around =
      compute_routes(nodes_.size(), edges_of(metric_, links_, dead, link_of_edge));
  for (size_t src = 0; src < around.size(); ++src) {
    for (size_t dst = 0; dst < around.size(); ++dst) {
      const size_t edge = around.link(src, dst);
      if (edge == SIZE_MAX) continue;  // unreachable now: this book's route stays
      out.table_.set_link(src, dst, link_of_edge[edge]);  // the edge's number among the links left
    }
  }
  return out;
}

std::map<size_t, std::vector<RouteSpec>> changed_routes(const RouteBook& from,
                                                        const RouteBook& to) {
  std::map<size_t, std::vector<RouteSpec>> out;
  const RoutingTable& a = from.table();
  const RoutingTable& b = to.table();
  for (size_t src = 0; src < b.size(); ++src) {
    for (size_t dst = 0; dst < b.size(); ++dst) {
      // The link names the next hop too: the same link from the same node, the same route.
      if (b.link(src, dst) == SIZE_MAX || a.link(src, dst) == b.link(src, dst)) continue;
      out[src].push_back(*to.spec_to(src, dst));
    }
  }
  return out;
}

std::map<size_t, KernelRouteChange> changed_kernel_routes(const RouteBook& from,
                                                          const RouteBook& to) {
  std::map<size_t, KernelRouteChange> out;
  for (const auto& [src, per_destination] : changed_routes(from, to)) {
    const std::vector<RouteSpec> before = from.kernel_routes_from(src);
    const std::vector<RouteSpec> after = to.kernel_routes_from(src);
    KernelRouteChange change;
    // Both sorted: what is new or changed goes in, prefixes no longer held come out.
    std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                        std::back_inserter(change.replace));
    std::set<Ipv4Prefix> kept;
    for (const RouteSpec& r : after) kept.insert(r.dst);
    for (const RouteSpec& r : before)
      if (!kept.count(r.dst)) change.withdraw.push_back(r.dst);
    if (!change.replace.empty() || !change.withdraw.empty()) out[src] = std::move(change);
  }
  return out;
}

std::string RouteBook::rule() const {
  return std::string("static shortest paths by ") +
         (metric_ == RouteMetric::kHops ? "hop count" : "delay") +
         ", one route per reachable pair; ties go to fewer hops, then to the lower-numbered "
         "next hop";
}

std::optional<size_t> RouteBook::index(const std::string& node) const {
  const auto it = by_name_.find(node);
  return it == by_name_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

size_t RouteBook::count_from(size_t src) const {
  size_t n = 0;
  for (size_t dst = 0; dst < table_.size(); ++dst) n += table_.link(src, dst) != SIZE_MAX;
  return n;
}

size_t RouteBook::count() const {
  size_t n = 0;
  for (size_t src = 0; src < table_.size(); ++src) n += count_from(src);
  return n;
}

RouteSpec RouteBook::spec(size_t src, size_t dst, size_t link) const {
  const Link& via_link = links_[link];
  const bool src_is_a = via_link.a == src;
  // The neighbour's address on the shared /30: .2 when we are endpoint a, else .1.
  const Ipv4Address via{via_link.subnet.address.value + (src_is_a ? 2u : 1u)};
  return RouteSpec{Ipv4Prefix{nodes_[dst].address, 32}, via,
                   src_is_a ? via_link.if_a : via_link.if_b, nodes_[src].address};
}

std::optional<PlannedRoute> RouteBook::route(size_t src, size_t dst) const {
  if (src >= table_.size() || dst >= table_.size()) return std::nullopt;
  const NextHop hop = table_.at(src, dst);
  if (hop.node == SIZE_MAX) return std::nullopt;
  PlannedRoute r;
  r.node = nodes_[src].name;
  r.destination = nodes_[dst].name;
  r.route = spec(src, dst, hop.link);
  r.cost = hop.cost;
  for (size_t n : route_path(table_, src, dst)) r.path.push_back(nodes_[n].name);
  return r;
}

std::optional<RouteSpec> RouteBook::spec_to(size_t src, size_t dst) const {
  if (src >= table_.size() || dst >= table_.size() || table_.link(src, dst) == SIZE_MAX)
    return std::nullopt;
  return spec(src, dst, table_.link(src, dst));
}

std::vector<RouteSpec> RouteBook::specs_from(size_t src) const {
  std::vector<RouteSpec> out;
  out.reserve(table_.size());
  for (size_t dst = 0; dst < table_.size(); ++dst) {
    const size_t link = table_.link(src, dst);
    if (link != SIZE_MAX) out.push_back(spec(src, dst, link));
  }
  return out;
}

std::vector<RouteSpec> RouteBook::kernel_routes_from(size_t src) const {
  // Next hops numbered by their link: a route is written out only for a prefix held.
  std::vector<HopOf> destinations;
  destinations.reserve(table_.size());
  std::map<size_t, size_t> a_destination_by_link;
  for (size_t dst = 0; dst < table_.size(); ++dst) {
    const size_t link = table_.link(src, dst);
    if (link == SIZE_MAX) continue;
    destinations.push_back({Ipv4Prefix{nodes_[dst].address, 32}, static_cast<int>(link)});
    a_destination_by_link.emplace(link, dst);
  }
  const std::vector<HeldPrefix> held = aggregate_hops(std::move(destinations));
  std::vector<RouteSpec> out;
  out.reserve(held.size());
  for (const HeldPrefix& p : held) {
    const size_t dst = a_destination_by_link.at(static_cast<size_t>(p.hop));
    RouteSpec r = spec(src, dst, table_.link(src, dst));
    r.dst = p.dst;
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end());
  return out;
}

PathDelays RouteBook::path_delays_us(
    const std::vector<std::pair<int64_t, int64_t>>& per_link) const {
  const size_t n = table_.size();
  PathDelays delay(n);
  std::vector<size_t> chain;
  std::vector<bool> known(n);
  for (size_t dst = 0; dst < n; ++dst) {
    // known[v]: v's delay to dst is final. Each node is walked once per destination: the
    // walk stops at the first node already known and fills the chain back from there.
    std::fill(known.begin(), known.end(), false);
    known[dst] = true;
    for (size_t src = 0; src < n; ++src) {
      chain.clear();
      size_t v = src;
      while (!known[v] && table_.link(v, dst) != SIZE_MAX && chain.size() <= n) {
        chain.push_back(v);
        v = table_.next(v, dst);
      }
      if (!known[v]) {  // unreachable: every node on the chain is too
        for (size_t u : chain) known[u] = true;
        continue;
      }
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const size_t link = table_.link(*it, dst);
        const auto& [a2b, b2a] = per_link[link];
        delay.set(*it, dst,
                  delay(table_.next(*it, dst), dst) + (links_[link].a == *it ? a2b : b2a));
        known[*it] = true;
      }
    }
  }
  return delay;
}

nlohmann::json planned_route_to_json(const PlannedRoute& r) {
  nlohmann::json j = route_to_json(r.route);
  j["node"] = r.node;
  j["destination"] = r.destination;
  j["path"] = r.path;
  j["cost"] = r.cost;
  return j;
}

}  // namespace testbed
