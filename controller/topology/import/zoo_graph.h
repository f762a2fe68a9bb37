// Profiles from real network topologies: a graph as the Internet Topology Zoo draws one
// (GraphML or GML, read by graph_file.h) turned into a lab. Pure: the graph comes in as
// data and the profile goes out as text, so every rule is unit-tested without files.
//
// How a graph becomes a lab, each a choice the Zoo's files leave open (docs/topologies.md):
//  - node names: the node's label, lower case, every run of other characters than a-z and
//    0-9 made one '-', cut to fit the profile's 32; an empty one is "n" and the node's id;
//    a name taken already gets "-2", "-3", ...;
//  - delay: the great-circle distance between the two ends' coordinates (a sphere of the
//    Earth's mean radius) at the speed of light in fibre, c / 1.468 (the group index of
//    standard single-mode fibre at 1550 nm); a link with an end without coordinates takes
//    --default-delay, or the import is refused naming the nodes;
//  - rate: the link's LinkSpeedRaw (bit/s) where the file gives one, else --default-rate;
//    both times --rate-scale. Parallel links between two nodes become one with the sum of
//    their rates; a link from a node to itself is left out. Both are counted;
//  - a graph that is not connected is refused with its components named, or imported as
//    its largest component when asked (the others counted).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace testbed {

struct GraphNode {
  std::string id;                             // the file's id (GraphML's id attribute, GML's id)
  std::string label;                          // "" when the file has none
  std::optional<double> latitude, longitude;  // degrees, when the file has both
};

struct GraphEdge {
  size_t a = 0, b = 0;              // indices into nodes
  std::optional<double> speed_bps;  // LinkSpeedRaw, when given and positive
};

struct ImportedGraph {
  std::string name;  // the network's name (its label), "" when none
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
};

struct GraphImportOptions {
  std::string lab;                         // the profile's lab name (valid, checked by the caller)
  std::optional<double> default_delay_us;  // for links with an end without coordinates
  // 100 Mbit/s: a common access rate of the Zoo's era, and what two cores emulate on a
  // few dozen links at once; stated in the profile's header and in --json.
  double default_rate_bps = 100e6;
  double rate_scale = 1.0;
  bool largest_component = false;
  std::string source;   // the file, for the header
  std::string command;  // how the profile was made, for the header
};

struct ImportedLink {
  std::string a, b;
  double rate_bps = 0;  // after scaling
  double delay_us = 0;
  double distance_km = -1;  // -1: an end has no coordinates (default delay)
  bool rate_given = false;  // every parallel edge had LinkSpeedRaw
  size_t parallel = 1;      // edges merged into this link
};

struct GraphProfile {
  std::string yaml;
  std::vector<std::string> node_names;  // in the file's order, of the nodes imported
  std::vector<ImportedLink> links;
  size_t self_loops = 0;      // left out
  size_t merged_edges = 0;    // parallel edges folded into another link
  size_t components = 1;      // of the whole graph
  size_t nodes_left_out = 0;  // outside the largest component, when asked for it
  size_t default_rate_links = 0, default_delay_links = 0;
};

// The node names the rules above give, in order (pure, for the tests and the report).
std::vector<std::string> zoo_node_names(const std::vector<GraphNode>& nodes);

// Great-circle distance in km between two points given in degrees.
double great_circle_km(double lat1, double lon1, double lat2, double lon2);

// Throws std::invalid_argument with the reason: no nodes or no links, a graph that is not
// connected (its components named), links without coordinates and no default delay (the
// nodes named), a bad option.
GraphProfile import_graph(const ImportedGraph& graph, const GraphImportOptions& options);

}  // namespace testbed
