// The input of APSP (Li et al., "Placement of Parameter Server in WAN Topology"): the data
// centres, the links between them with their capacities, and the model size D. Pure data,
// built from a topology's configured rates or by hand in tests.
#pragma once

#include <string>
#include <vector>

namespace testbed::placement {

struct PlacementLink {
  int a = 0, b = 0;
  double a2b_bps = 0, b2a_bps = 0;  // configured rates, bits per second
};

// How the LP counts a link's capacity. The paper counts both directions together (its
// constraint sums every flow on the link against one B_e); kDirected is the reading where
// push and pull, which BSP runs one after the other, each have a direction to themselves.
enum class CapacityModel { kUndirected, kDirected };

struct PlacementGraph {
  std::vector<std::string> names;
  std::vector<PlacementLink> links;
  int nodes() const { return static_cast<int>(names.size()); }
  int degree(int node) const;
  double incident_bps(int node) const;  // sum over the node's links of both directions
};

// One flow's path from a worker to the server: the nodes {worker, ..., server} and the
// links crossed, with `forward[i]` true when link i is crossed from its a to its b.
struct Path {
  std::vector<int> nodes;
  std::vector<int> links;
  std::vector<bool> forward;
  int hops() const { return static_cast<int>(links.size()); }
};

// Every simple path from `from` to `to`, ordered by hops, then by the node ids along it
// (lexicographically), so that the LP's columns, and so its answer, repeat exactly.
std::vector<Path> simple_paths(const PlacementGraph& g, int from, int to);

}  // namespace testbed::placement
