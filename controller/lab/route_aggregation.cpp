#include "controller/lab/route_aggregation.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>

namespace testbed {
namespace {

// A next hop as aggregate_routes compares them: what a route does besides its destination.
using Hop = std::tuple<Ipv4Address, std::string, Ipv4Address>;  // via, dev, src

struct Entry {
  uint32_t network = 0;
  int length = 32;
  int hop = 0;
};

// A branching point of the trie (or a destination): the prefix its entries share, and the
// next hops any one of which could serve all of it (ORTC's second pass). Nodes live in one
// vector and their hop sets in one pool, children and sets named by index: a node and a set
// allocated apiece made the tries a quarter of a 1000-node plan's time.
struct TrieNode {
  uint32_t network = 0;
  int length = 0;
  uint32_t hops_at = 0, hops_count = 0;  // the sorted set, in Trie::hops
  uint32_t zero = kNone, one = kNone;
  static constexpr uint32_t kNone = UINT32_MAX;
};

struct Trie {
  std::vector<TrieNode> nodes;
  std::vector<int> hops;
  const int* first_hop(const TrieNode& n) const { return hops.data() + n.hops_at; }
};

uint32_t mask(int length) {
  return length == 0 ? 0 : ~uint32_t{0} << (32 - length);
}

// Entries [lo, hi), sorted by network, sharing their first `length` bits. Returns the
// node's index in t.nodes.
uint32_t build(Trie& t, const std::vector<Entry>& e, size_t lo, size_t hi, int length) {
  const auto index = static_cast<uint32_t>(t.nodes.size());
  t.nodes.emplace_back();
  if (hi - lo == 1) {
    // A destination's own prefix, not the level it hangs from: the same count of routes,
    // and none covers more don't-care addresses than it must.
    TrieNode& node = t.nodes[index];
    node.network = e[lo].network;
    node.length = std::max(length, e[lo].length);
    node.hops_at = static_cast<uint32_t>(t.hops.size());
    node.hops_count = 1;
    t.hops.push_back(e[lo].hop);
    return index;
  }
  // Where the first and last entries part is where every entry between them parts: the
  // single-child levels above it are skipped (their set is their child's).
  const int split = std::countl_zero(e[lo].network ^ e[hi - 1].network);
  const uint32_t bit = uint32_t{1} << (31 - split);
  const size_t mid = static_cast<size_t>(
      std::partition_point(e.begin() + lo, e.begin() + hi,
                           [&](const Entry& x) { return (x.network & bit) == 0; }) -
      e.begin());
  const uint32_t zero = build(t, e, lo, mid, split + 1);
  const uint32_t one = build(t, e, mid, hi, split + 1);
  // ORTC: the hops both halves could take, or else any either could. The halves' sets are
  // read from the pool while the new one is appended to it, so the room for the largest
  // result (their union) is made first and nothing moves.
  const TrieNode &a = t.nodes[zero], &b = t.nodes[one];
  const size_t at = t.hops.size(), need = at + a.hops_count + b.hops_count;
  if (t.hops.capacity() < need) t.hops.reserve(std::max(need, 2 * t.hops.capacity()));
  const int *a0 = t.first_hop(a), *a1 = a0 + a.hops_count;
  const int *b0 = t.first_hop(b), *b1 = b0 + b.hops_count;
  std::set_intersection(a0, a1, b0, b1, std::back_inserter(t.hops));
  if (t.hops.size() == at) std::set_union(a0, a1, b0, b1, std::back_inserter(t.hops));
  TrieNode& node = t.nodes[index];
  node.network = e[lo].network & mask(split);
  node.length = split;
  node.zero = zero;
  node.one = one;
  node.hops_at = static_cast<uint32_t>(at);
  node.hops_count = static_cast<uint32_t>(t.hops.size() - at);
  return index;
}

// ORTC's third pass: a prefix where what comes from above does not serve the subtree.
void emit(const Trie& t, uint32_t index, int inherited, std::vector<HeldPrefix>& out) {
  const TrieNode& n = t.nodes[index];
  const int* first = t.first_hop(n);
  const int* last = first + n.hops_count;
  int chosen = inherited;
  if (!std::binary_search(first, last, inherited)) {
    chosen = *first;
    out.push_back({Ipv4Prefix{Ipv4Address{n.network}, n.length}, chosen});
  }
  if (n.zero != TrieNode::kNone) emit(t, n.zero, chosen, out);
  if (n.one != TrieNode::kNone) emit(t, n.one, chosen, out);
}

}  // namespace

std::vector<HeldPrefix> aggregate_hops(std::vector<HopOf> destinations) {
  if (destinations.empty()) return {};
  // One next hop for all (a star's leaf, any node of one link): what the trie below would
  // give, the root prefix alone, without building it. A 10,000-leaf star's plan built
  // 10,000 tries of 10,000 destinations for this (2/3 of its 66 s in allocation).
  const int only = destinations.front().hop;
  if (std::all_of(destinations.begin(), destinations.end(),
                  [&](const HopOf& d) { return d.hop == only; })) {
    uint32_t low = UINT32_MAX, high = 0;
    int root = 32;
    for (const HopOf& d : destinations) {
      low = std::min(low, d.dst.network().value);
      high = std::max(high, d.dst.network().value);
      root = std::min(root, d.dst.length);
    }
    if (low != high) root = std::min(root, std::countl_zero(low ^ high));
    return {HeldPrefix{Ipv4Prefix{Ipv4Address{low & mask(root)}, root}, only}};
  }
  std::vector<Entry> entries;
  entries.reserve(destinations.size());
  for (const HopOf& d : destinations)
    entries.push_back({d.dst.network().value, d.dst.length, d.hop});
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.network < b.network; });
  // The root: the longest prefix holding every destination (never a shorter one).
  int root = std::min_element(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
               return a.length < b.length;
             })->length;
  if (entries.size() > 1)
    root = std::min(root, std::countl_zero(entries.front().network ^ entries.back().network));
  Trie trie;
  trie.nodes.reserve(2 * entries.size());  // a binary tree of that many leaves
  trie.hops.reserve(4 * entries.size());
  const uint32_t top = build(trie, entries, 0, entries.size(), root);
  std::vector<HeldPrefix> out;
  emit(trie, top, -1, out);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<RouteSpec> aggregate_routes(const std::vector<RouteSpec>& routes) {
  // Next hops numbered in order of first appearance.
  std::vector<const RouteSpec*> hops;
  std::map<Hop, int> hop_index;
  std::vector<HopOf> destinations;
  destinations.reserve(routes.size());
  for (const RouteSpec& r : routes) {
    const auto [it, added] =
        hop_index.emplace(Hop{r.via, r.dev, r.src}, static_cast<int>(hops.size()));
    if (added) hops.push_back(&r);
    destinations.push_back({r.dst, it->second});
  }
  std::vector<RouteSpec> out;
  for (const HeldPrefix& p : aggregate_hops(std::move(destinations))) {
    RouteSpec r = *hops[static_cast<size_t>(p.hop)];
    r.dst = p.dst;
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end());
  return out;
}

const RouteSpec* longest_match(const std::vector<RouteSpec>& table, Ipv4Address address) {
  const RouteSpec* best = nullptr;
  for (const RouteSpec& r : table) {
    if (r.dst.contains(address) && (!best || r.dst.length > best->dst.length)) best = &r;
  }
  return best;
}

}  // namespace testbed
