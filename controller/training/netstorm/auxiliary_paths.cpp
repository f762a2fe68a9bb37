#include "controller/training/netstorm/auxiliary_paths.h"

#include <limits>
#include <queue>

namespace testbed {
namespace {

// The headers of chunks carry at most this many nodes of route (agent/wire.h).
constexpr size_t kMaxRouteNodes = 16;

// The fastest path from -> to in g, as nodes; empty when there is none.
std::vector<int> fastest_path(const ThroughputGraph& g, int from, int to) {
  const auto n = static_cast<size_t>(g.nodes);
  std::vector<double> cost(n, std::numeric_limits<double>::infinity());
  std::vector<int> previous(n, -1);
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  cost[static_cast<size_t>(from)] = 0;
  queue.emplace(0, from);
  while (!queue.empty()) {
    const auto [c, u] = queue.top();
    queue.pop();
    if (c > cost[static_cast<size_t>(u)]) continue;
    for (int v = 0; v < g.nodes; ++v) {
      if (!g.has_link(u, v)) continue;
      const double through = c + 1.0 / g.mbit[u][v];
      // Ties go to the lower previous node: the same graph always gives the same routes.
      if (through < cost[static_cast<size_t>(v)]) {
        cost[static_cast<size_t>(v)] = through;
        previous[static_cast<size_t>(v)] = u;
        queue.emplace(through, v);
      }
    }
  }
  if (previous[static_cast<size_t>(to)] < 0) return {};
  std::vector<int> path{to};
  while (path.back() != from) path.push_back(previous[static_cast<size_t>(path.back())]);
  return {path.rbegin(), path.rend()};
}

}  // namespace

std::vector<std::vector<int>> auxiliary_routes(const ThroughputGraph& g, int from, int to,
                                               size_t max_nodes) {
  ThroughputGraph pruned = g;
  pruned.mbit[from][to] = 0;  // the primary path
  std::vector<std::vector<int>> routes;
  // Every round removes at least one edge, so this ends.
  for (;;) {
    std::vector<int> path = fastest_path(pruned, from, to);
    if (path.empty()) break;
    for (size_t i = 0; i + 1 < path.size(); ++i) pruned.mbit[path[i]][path[i + 1]] = 0;
    if (path.size() <= max_nodes) routes.push_back(std::move(path));
  }
  return routes;
}

void add_auxiliary_paths(SyncPolicy& policy, const ThroughputGraph& g, AuxiliaryPaths knobs) {
  knobs.routes.clear();
  for (const auto& tree : policy.trees) {
    for (size_t n = 0; n < tree.parent.size(); ++n) {
      const int child = static_cast<int>(n), parent = tree.parent[n];
      if (parent == kNoParent) continue;
      for (const auto& [a, b] : {std::pair{child, parent}, std::pair{parent, child}}) {
        if (!knobs.routes.count({a, b}))
          knobs.routes[{a, b}] = auxiliary_routes(g, a, b, kMaxRouteNodes);
      }
    }
  }
  policy.aux = std::move(knobs);
}

}  // namespace testbed
