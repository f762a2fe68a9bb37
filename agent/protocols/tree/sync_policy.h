// How a model is synchronized: a set of aggregation trees, each with a root and a share of
// the model's chunks. Every strategy (PS star, BKT, MST, FAPT, NetStorm's multi-root FAPT)
// is a way of building this from what is known of the network. Pure data.
//
// Aggregation follows a tree: a node sends its parent the sum of its own gradient and its
// children's; the root holds the total and sends the result back down the same tree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

constexpr int kNoParent = -1;

struct AggregationTree {
  int root = 0;
  std::vector<int> parent;  // parent[node]; kNoParent for the root
  double share = 1.0;       // fraction of the model's chunks this tree carries
};

// NetStorm's auxiliary paths (Sec. VI): besides the primary path of a tree edge from -> to
// (the direct send), other routes of physical links from `from` to `to`, fastest first.
// Intermediate nodes only forward a chunk on such a route; the route travels in the
// chunk's header, so it is the sender's choice even while policies change (Sec. VII-B).
struct AuxiliaryPaths {
  // Table II defaults. The primary path counts as busy once PRIMARY_BUSY_BOUND chunks are
  // in flight on it (Sec. IX-B: "busy when it has 2 model chunks in transit"); an auxiliary
  // route takes a chunk while fewer than AUXILIARY_QUEUE_LENGTH are in flight on it.
  int primary_busy_bound = 2;
  int queue_length = 1;
  std::map<std::pair<int, int>, std::vector<std::vector<int>>> routes;  // (from, to) -> routes
};

struct SyncPolicy {
  std::string strategy;
  uint64_t version = 0;  // raised whenever the policy changes; nodes switch at iteration ends
  std::vector<AggregationTree> trees;
  std::optional<AuxiliaryPaths> aux;  // NetStorm-pro; none for every other strategy
};

// The network as the strategies see it: measured throughput of each direction of each
// physical link, in Mbit/s (0 where there is no link).
struct ThroughputGraph {
  int nodes = 0;
  std::vector<std::vector<double>> mbit;  // mbit[from][to]
  bool has_link(int from, int to) const { return mbit[from][to] > 0; }
};

// Children of each node in a tree.
std::vector<std::vector<int>> children_of(const AggregationTree& tree);

// Nodes in an order where every child comes before its parent (leaves first, root last).
std::vector<int> bottom_up_order(const AggregationTree& tree);

// The chunk index ranges [begin, end) of each tree, proportional to the shares; every
// chunk goes to exactly one tree.
std::vector<std::pair<uint32_t, uint32_t>> assign_chunks(const SyncPolicy& policy, uint32_t chunks);

// Empty when the tree is a spanning tree rooted at `root`, else what is wrong.
std::string check_tree(const AggregationTree& tree);

}  // namespace testbed
