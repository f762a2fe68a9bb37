// The tree strategies' builders (ps, bkt, mst, fapt and NetStorm's stages) over the measured
// throughput graph, and the parsing of a strategy's NAME@NODE. Which strategies exist, and
// what each is, is the registry's (controller/training/strategy_registry.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "agent/protocols/tree/sync_policy.h"
#include "controller/training/strategy_registry.h"

namespace testbed {

struct StrategyOptions {
  int ps_node = -1;    // ps: the server's node; -1 picks the best-connected node
  int bkt_arity = 2;   // bkt: children per node
  int num_roots = 9;   // netstorm: NUM_ROOT_SERVERS (Table II)
  AuxiliaryPaths aux;  // netstorm-pro: PRIMARY_BUSY_BOUND, AUXILIARY_QUEUE_LENGTH
};

// "apsp@chicago" -> {"apsp", "chicago"}; "apsp" -> {"apsp", ""}.
std::pair<std::string, std::string> split_placed(const std::string& strategy);
// How a placement strategy picks its server, as placement::chosen_server() reads it: the
// fixed node when there is one, else the strategy's rule ("apsp", "random",
// "most-connected").
std::string placement_rule(const std::string& strategy, const std::string& fixed_server);
// The tree strategies' names, in the registry's order.
std::vector<std::string> strategy_names();
// Every strategy `train` knows: the tree strategies, then the parameter-server ones.
std::vector<std::string> all_strategy_names();

// The registry's tree builders (TreeBuilder): the star at the server, the balanced k-ary
// tree rooted there, the maximum spanning tree, and FAPT at the best `traits.roots` roots.
SyncPolicy build_star_policy(const StrategyTraits& traits, const ThroughputGraph& g,
                             const StrategyOptions& options);
SyncPolicy build_bkt_policy(const StrategyTraits& traits, const ThroughputGraph& g,
                            const StrategyOptions& options);
SyncPolicy build_mst_policy(const StrategyTraits& traits, const ThroughputGraph& g,
                            const StrategyOptions& options);
SyncPolicy build_fapt_policy(const StrategyTraits& traits, const ThroughputGraph& g,
                             const StrategyOptions& options);

// The tree strategy's policy by its registry entry. Throws std::invalid_argument for a name
// that is no tree strategy.
SyncPolicy build_policy(const std::string& strategy, const ThroughputGraph& g,
                        const StrategyOptions& options = {});

// The node with the highest total throughput over its own links (ties: the lower index).
int best_connected(const ThroughputGraph& g);

// For each candidate root, the fastest aggregation paths toward it: next_hop[node] along
// the path minimizing the sum over hops of 1 / throughput (transfer time per bit).
std::vector<int> fastest_paths_to(const ThroughputGraph& g, int root);

// NetStorm's root quality score: group the hops of every node's fastest path to `root` by
// their depth (distance from the root), take each depth's slowest hop, and score
// 1 / sum over depths of 1 / slowest. Higher is better.
double root_quality(const ThroughputGraph& g, int root);

// NetStorm's multi-root FAPT for a given root set (Alg. 2: the roots are chosen once, then
// kept; the trees and the shares follow the network).
SyncPolicy netstorm_policy(const ThroughputGraph& g, const std::vector<int>& roots);

}  // namespace testbed
