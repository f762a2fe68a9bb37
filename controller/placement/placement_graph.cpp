#include "controller/placement/placement_graph.h"

#include <algorithm>
#include <functional>

namespace testbed::placement {

int PlacementGraph::degree(int node) const {
  return static_cast<int>(std::count_if(links.begin(), links.end(),
                                        [&](const auto& l) { return l.a == node || l.b == node; }));
}

double PlacementGraph::incident_bps(int node) const {
  double sum = 0;
  for (const auto& l : links)
    if (l.a == node || l.b == node) sum += l.a2b_bps + l.b2a_bps;
  return sum;
}

std::vector<Path> simple_paths(const PlacementGraph& g, int from, int to) {
  std::vector<Path> out;
  std::vector<bool> visited(static_cast<size_t>(g.nodes()), false);
  Path current;
  current.nodes.push_back(from);
  visited[static_cast<size_t>(from)] = true;
  // Depth-first over the links; the graphs are WAN backbones of about a dozen nodes, whose
  // path counts (hundreds per flow on B4) are small for an LP.
  std::function<void(int)> walk = [&](int at) {
    if (at == to) {
      out.push_back(current);
      return;
    }
    for (size_t i = 0; i < g.links.size(); ++i) {
      const auto& l = g.links[i];
      if (l.a != at && l.b != at) continue;
      const int next = l.a == at ? l.b : l.a;
      if (visited[static_cast<size_t>(next)]) continue;
      visited[static_cast<size_t>(next)] = true;
      current.nodes.push_back(next);
      current.links.push_back(static_cast<int>(i));
      current.forward.push_back(l.a == at);
      walk(next);
      current.nodes.pop_back();
      current.links.pop_back();
      current.forward.pop_back();
      visited[static_cast<size_t>(next)] = false;
    }
  };
  walk(from);
  std::sort(out.begin(), out.end(), [](const Path& x, const Path& y) {
    if (x.hops() != y.hops()) return x.hops() < y.hops();
    return x.nodes < y.nodes;
  });
  return out;
}

}  // namespace testbed::placement
