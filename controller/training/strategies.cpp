#include "controller/training/strategies.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <stdexcept>

#include "controller/training/netstorm/auxiliary_paths.h"

namespace testbed {
namespace {

AggregationTree star(int nodes, int root) {
  AggregationTree t;
  t.root = root;
  t.parent.assign(static_cast<size_t>(nodes), root);
  t.parent[static_cast<size_t>(root)] = kNoParent;
  return t;
}

}  // namespace

// The node with the highest total throughput over its own links: a fair default for a
// parameter server.
int best_connected(const ThroughputGraph& g) {
  int best = 0;
  double best_sum = -1;
  for (int n = 0; n < g.nodes; ++n) {
    double sum = 0;
    for (int m = 0; m < g.nodes; ++m) sum += g.mbit[n][m] + g.mbit[m][n];
    if (sum > best_sum) {
      best_sum = sum;
      best = n;
    }
  }
  return best;
}

namespace {

AggregationTree balanced_kary(int nodes, int root, int k) {
  // Heap layout over the nodes in order, starting from `root`.
  std::vector<int> order(static_cast<size_t>(nodes));
  std::iota(order.begin(), order.end(), 0);
  std::rotate(order.begin(), order.begin() + root, order.end());
  AggregationTree t;
  t.root = root;
  t.parent.assign(static_cast<size_t>(nodes), kNoParent);
  for (size_t i = 1; i < order.size(); ++i) {
    t.parent[static_cast<size_t>(order[i])] = order[(i - 1) / static_cast<size_t>(k)];
  }
  return t;
}

// Prim's algorithm on the undirected graph weighted by each link's slower direction,
// maximizing, then rooted at the tree's centre (smallest height) so that aggregation
// does not cross the whole tree twice.
AggregationTree max_spanning_tree(const ThroughputGraph& g) {
  const auto w = [&](int a, int b) { return std::min(g.mbit[a][b], g.mbit[b][a]); };
  std::vector<int> link_parent(static_cast<size_t>(g.nodes), kNoParent);
  std::vector<double> best(static_cast<size_t>(g.nodes), -1);
  std::vector<bool> in(static_cast<size_t>(g.nodes), false);
  best[0] = 0;
  for (int round = 0; round < g.nodes; ++round) {
    int u = -1;
    for (int n = 0; n < g.nodes; ++n) {
      if (!in[n] && best[n] >= 0 && (u < 0 || best[n] > best[u])) u = n;
    }
    if (u < 0) break;
    in[u] = true;
    for (int v = 0; v < g.nodes; ++v) {
      if (!in[v] && g.has_link(u, v) && g.has_link(v, u) && w(u, v) > best[v]) {
        best[v] = w(u, v);
        link_parent[v] = u;
      }
    }
  }
  // Undirected adjacency of the tree, then the root with the smallest height.
  std::vector<std::vector<int>> adj(static_cast<size_t>(g.nodes));
  for (int v = 0; v < g.nodes; ++v) {
    if (link_parent[v] != kNoParent) {
      adj[v].push_back(link_parent[v]);
      adj[link_parent[v]].push_back(v);
    }
  }
  AggregationTree bestTree;
  int best_height = std::numeric_limits<int>::max();
  for (int r = 0; r < g.nodes; ++r) {
    AggregationTree t;
    t.root = r;
    t.parent.assign(static_cast<size_t>(g.nodes), kNoParent);
    std::vector<int> depth(static_cast<size_t>(g.nodes), -1), queue{r};
    depth[r] = 0;
    int height = 0;
    for (size_t i = 0; i < queue.size(); ++i) {
      for (int v : adj[queue[i]]) {
        if (depth[v] < 0) {
          depth[v] = depth[queue[i]] + 1;
          height = std::max(height, depth[v]);
          t.parent[v] = queue[i];
          queue.push_back(v);
        }
      }
    }
    if (height < best_height) {
      best_height = height;
      bestTree = t;
    }
  }
  return bestTree;
}

AggregationTree fapt(const ThroughputGraph& g, int root) {
  AggregationTree t;
  t.root = root;
  t.parent = fastest_paths_to(g, root);
  return t;
}

}  // namespace

std::vector<std::string> strategy_names() {
  return strategy_names_of(StrategyKind::kTree);
}

std::vector<std::string> all_strategy_names() {
  std::vector<std::string> all;
  for (const auto& t : strategy_registry()) all.push_back(t.name);
  return all;
}

std::string placement_rule(const std::string& strategy, const std::string& fixed_server) {
  if (!fixed_server.empty()) return fixed_server;
  return strategy_traits(strategy).placement_rule;
}

std::pair<std::string, std::string> split_placed(const std::string& strategy) {
  const auto at = strategy.find('@');
  if (at == std::string::npos) return {strategy, ""};
  return {strategy.substr(0, at), strategy.substr(at + 1)};
}

SyncPolicy netstorm_policy(const ThroughputGraph& g, const std::vector<int>& roots) {
  SyncPolicy p;
  p.strategy = "netstorm";
  for (int r : roots) {
    AggregationTree t = fapt(g, r);
    t.share = roots.size() == 1 ? 1.0 : root_quality(g, r);
    p.trees.push_back(t);
  }
  return p;
}

std::vector<int> fastest_paths_to(const ThroughputGraph& g, int root) {
  // Dijkstra from the root over reversed links: the cost of u -> v is 1 / mbit[u][v].
  std::vector<double> cost(static_cast<size_t>(g.nodes), std::numeric_limits<double>::infinity());
  std::vector<int> next(static_cast<size_t>(g.nodes), kNoParent);
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  cost[root] = 0;
  queue.emplace(0, root);
  while (!queue.empty()) {
    const auto [c, v] = queue.top();
    queue.pop();
    if (c > cost[v]) continue;
    for (int u = 0; u < g.nodes; ++u) {
      if (!g.has_link(u, v)) continue;
      const double through = c + 1.0 / g.mbit[u][v];
      // Ties go to the lower node index, so the same graph always gives the same tree.
      if (through < cost[u] || (through == cost[u] && v < next[u])) {
        cost[u] = through;
        next[u] = v;
        queue.emplace(through, u);
      }
    }
  }
  next[root] = kNoParent;
  return next;
}

double root_quality(const ThroughputGraph& g, int root) {
  const std::vector<int> next = fastest_paths_to(g, root);
  std::map<int, double> slowest;  // depth -> slowest hop at that depth
  for (int n = 0; n < g.nodes; ++n) {
    // The depth of a hop is its distance from the root: walk the path to count it.
    std::vector<int> path{n};
    while (path.back() != root && next[path.back()] != kNoParent &&
           path.size() <= static_cast<size_t>(g.nodes)) {
      path.push_back(next[path.back()]);
    }
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      const int depth = static_cast<int>(path.size() - 1 - i);  // the hop into the root is depth 1
      const double t = g.mbit[path[i]][path[i + 1]];
      auto it = slowest.find(depth);
      if (it == slowest.end() || t < it->second) slowest[depth] = t;
    }
  }
  double inverse = 0;
  for (const auto& [depth, t] : slowest) inverse += 1.0 / t;
  return inverse > 0 ? 1.0 / inverse : 0;
}

namespace {

// The server's node: the one the options fix, else the best-connected.
int server_node(const ThroughputGraph& g, const StrategyOptions& options) {
  return options.ps_node >= 0 ? options.ps_node : best_connected(g);
}

SyncPolicy one_tree(const StrategyTraits& traits, AggregationTree tree) {
  SyncPolicy p;
  p.strategy = traits.name;
  p.trees.push_back(std::move(tree));
  return p;
}

}  // namespace

SyncPolicy build_star_policy(const StrategyTraits& traits, const ThroughputGraph& g,
                             const StrategyOptions& options) {
  return one_tree(traits, star(g.nodes, server_node(g, options)));
}

SyncPolicy build_bkt_policy(const StrategyTraits& traits, const ThroughputGraph& g,
                            const StrategyOptions& options) {
  return one_tree(traits,
                  balanced_kary(g.nodes, server_node(g, options), std::max(1, options.bkt_arity)));
}

SyncPolicy build_mst_policy(const StrategyTraits& traits, const ThroughputGraph& g,
                            const StrategyOptions&) {
  return one_tree(traits, max_spanning_tree(g));
}

SyncPolicy build_fapt_policy(const StrategyTraits& traits, const ThroughputGraph& g,
                             const StrategyOptions& options) {
  std::vector<std::pair<double, int>> scored;
  for (int r = 0; r < g.nodes; ++r) scored.emplace_back(root_quality(g, r), r);
  // Best score first; ties to the lower index, for reproducible policies.
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  // -1: NetStorm's NUM_ROOT_SERVERS, from the options (Table II).
  const int count = std::clamp(traits.roots < 0 ? options.num_roots : traits.roots, 1, g.nodes);
  std::vector<int> roots;
  for (int i = 0; i < count; ++i) roots.push_back(scored[static_cast<size_t>(i)].second);
  SyncPolicy p = netstorm_policy(g, roots);
  p.strategy = traits.name;
  if (traits.aux) add_auxiliary_paths(p, g, options.aux);
  return p;
}

SyncPolicy build_policy(const std::string& strategy, const ThroughputGraph& g,
                        const StrategyOptions& options) {
  const StrategyTraits* traits = find_strategy(strategy);
  if (traits == nullptr || traits->build == nullptr) {
    std::string trees;
    for (const auto& name : strategy_names()) trees += (trees.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown strategy '" + strategy + "' (use " + trees + ")");
  }
  return traits->build(*traits, g, options);
}

}  // namespace testbed
