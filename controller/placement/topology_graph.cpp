#include "controller/placement/topology_graph.h"

namespace testbed::placement {

PlacementGraph graph_of(const Topology& t) {
  PlacementGraph g;
  for (const auto& n : t.nodes) g.names.push_back(n.name);
  for (const auto& l : t.links)
    g.links.push_back({static_cast<int>(l.a), static_cast<int>(l.b),
                       static_cast<double>(l.a2b.rate.bits_per_s),
                       static_cast<double>(l.b2a.rate.bits_per_s)});
  return g;
}

}  // namespace testbed::placement
