// The synchronization strategies the testbed compares, as builders of a SyncPolicy from
// the measured throughput graph:
//   ps       star: every node sends to one parameter server (the MXNET baseline)
//   bkt      balanced k-ary tree over the nodes, blind to the network (MLNET)
//   mst      maximum-throughput spanning tree of the physical links (TSEngine)
//   fapt     one fastest-aggregation-path tree at the best-scoring root (NetStorm Sec. IV)
//   netstorm multi-root FAPT: the best NUM_ROOT_SERVERS roots, chunk shares by score
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "agent/protocols/tree/sync_policy.h"

namespace testbed {

struct StrategyOptions {
  int ps_node = -1;    // ps: the server's node; -1 picks the best-connected node
  int bkt_arity = 2;   // bkt: children per node
  int num_roots = 9;   // netstorm: NUM_ROOT_SERVERS (Table II)
  AuxiliaryPaths aux;  // netstorm-pro: PRIMARY_BUSY_BOUND, AUXILIARY_QUEUE_LENGTH
};

// ps, bkt, mst, fapt, and NetStorm's stages (Sec. IX-B): netstorm-lite (static multi-root
// FAPT), netstorm-std (rebuilt from what chunks measure during the run), netstorm-pro (the
// same, plus auxiliary paths), and netstorm, the whole system (= netstorm-pro).
const std::vector<std::string>& strategy_names();
// The parameter-server strategies, named by their consistency model (bsp, ssp, async):
// workers loop on their own against sharded servers (agent/protocols/ps/ps_protocol.h);
// gaia, a replica per data center kept close by Approximate Synchronous Parallel
// (agent/protocols/gaia/); and drps, the same servers disk-resident (DRPS), under the
// parallel model --parallel names (bsp, ssp, async, or DRPS's own wsp); MLfabric's
// mlfabric-a, the asynchronous server with a scheduler ordering the updates within a delay
// bound (controller/training/mlfabric/), and mlfabric-s, the synchronous server whose
// scheduler places each clock's updates with in-network aggregation; their baselines
// rr-sync and tr-sync, synchronous training by ring or binary-tree all-reduce among the
// workers, no server (agent/protocols/allreduce/).
const std::vector<std::string>& ps_strategy_names();
// MLfabric's strategies, whose updates its scheduler places (mlfabric-a, mlfabric-s).
bool strategy_is_scheduled(const std::string& strategy);
// The all-reduce a strategy trains by: "ring" (rr-sync), "tree" (tr-sync), else "".
std::string strategy_all_reduce(const std::string& strategy);
bool strategy_is_ps(const std::string& strategy);
// Parameter-server placement (APSP, Li et al.): one server, BSP, every other node a worker
// whose pushes and pulls follow the source route the placement's LP and rounding chose.
//   apsp               the server at v* = argmin T_v
//   ps-most-connected  the server at the node with the most links
//   ps-random          the server at a node drawn from the seed
// NAME@NODE (and `ps@NODE` for the tree star) fixes the server at NODE instead.
const std::vector<std::string>& placement_strategy_names();
bool strategy_is_placement(const std::string& strategy);
// "apsp@chicago" -> {"apsp", "chicago"}; "apsp" -> {"apsp", ""}.
std::pair<std::string, std::string> split_placed(const std::string& strategy);
// How a placement strategy picks its server, as placement::chosen_server() reads it: the
// fixed node when there is one, else "apsp", "random" or "most-connected".
std::string placement_rule(const std::string& strategy, const std::string& fixed_server);
// Every strategy `train` knows: the tree strategies, then the parameter-server ones.
std::vector<std::string> all_strategy_names();
bool strategy_is_aware(const std::string& strategy);  // rebuilds its trees during the run
bool strategy_uses_aux(const std::string& strategy);  // sends on auxiliary paths too

// Throws std::invalid_argument for an unknown strategy name.
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
