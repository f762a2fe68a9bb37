#include "controller/topology/import/zoo_graph.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace testbed {
namespace {

// The profile's rule for node names: a-z 0-9 '-' '_', 1 to 32 characters.
constexpr size_t kZooMaxNodeName = 32;
// Room kept for a "-N" suffix that makes a name unique.
constexpr size_t kSuffixRoom = 4;
// The Earth's mean radius (IUGG), km.
constexpr double kEarthRadiusKm = 6371.0;
// Light in standard single-mode fibre (ITU-T G.652) at 1550 nm: group index 1.468, so
// c / 1.468 = 204,218 km/s, 4.897 us per km.
constexpr double kFibreKmPerUs = 299792.458 / 1.468 / 1e6;
// A component is named by at most this many of its nodes, and at most this many
// components are named: enough to find them in the file, short enough to read.
constexpr size_t kNamesShown = 4;

constexpr double kPi = 3.14159265358979323846;

std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  return out;
}

std::string shown_name(const GraphNode& n) {
  return n.label.empty() ? "node " + n.id : "'" + one_line(n.label) + "'";
}

std::string list_of(const std::vector<std::string>& items, size_t shown) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < shown; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > shown) out += " and " + std::to_string(items.size() - shown) + " more";
  return out;
}

// Connected components of the undirected graph, largest first (ties: the one holding the
// earliest node), each a sorted list of node indices.
std::vector<std::vector<size_t>> components_of(const ImportedGraph& g) {
  std::vector<std::vector<size_t>> adjacent(g.nodes.size());
  for (const auto& e : g.edges) {
    adjacent[e.a].push_back(e.b);
    adjacent[e.b].push_back(e.a);
  }
  std::vector<int> seen(g.nodes.size(), 0);
  std::vector<std::vector<size_t>> out;
  for (size_t start = 0; start < g.nodes.size(); ++start) {
    if (seen[start]) continue;
    std::vector<size_t> part, stack = {start};
    seen[start] = 1;
    while (!stack.empty()) {
      const size_t n = stack.back();
      stack.pop_back();
      part.push_back(n);
      for (size_t m : adjacent[n])
        if (!seen[m]) seen[m] = 1, stack.push_back(m);
    }
    std::sort(part.begin(), part.end());
    out.push_back(std::move(part));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& x, const auto& y) { return x.size() > y.size(); });
  return out;
}

std::string rate_text(double bps) {
  // Whole kbit/s, at least one: the profile's finest unit that every rate here fits.
  return std::to_string(std::max<long long>(1, std::llround(bps / 1e3))) + "kbit";
}

std::string figure(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace

double great_circle_km(double lat1, double lon1, double lat2, double lon2) {
  const auto rad = [](double deg) { return deg * kPi / 180.0; };
  // The haversine form: well-conditioned for the short distances most links have.
  const double dlat = rad(lat2 - lat1), dlon = rad(lon2 - lon1);
  const double h =
      std::sin(dlat / 2) * std::sin(dlat / 2) +
      std::cos(rad(lat1)) * std::cos(rad(lat2)) * std::sin(dlon / 2) * std::sin(dlon / 2);
  return 2 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(h)));
}

std::vector<std::string> zoo_node_names(const std::vector<GraphNode>& nodes) {
  std::vector<std::string> out;
  std::set<std::string> taken;
  for (const auto& n : nodes) {
    std::string name;
    bool gap = false;
    for (unsigned char c : n.label) {
      const char lower = static_cast<char>(std::tolower(c));
      if ((lower >= 'a' && lower <= 'z') || (c >= '0' && c <= '9')) {
        if (gap && !name.empty()) name += '-';
        name += lower;
        gap = false;
      } else {
        gap = true;
      }
    }
    if (name.empty()) {
      name = "n";
      for (unsigned char c : n.id)
        name += std::isalnum(c) ? static_cast<char>(std::tolower(c)) : '-';
    }
    name = name.substr(0, kZooMaxNodeName - kSuffixRoom);
    while (!name.empty() && name.back() == '-') name.pop_back();
    std::string unique = name;
    for (int k = 2; taken.count(unique); ++k) unique = name + "-" + std::to_string(k);
    taken.insert(unique);
    out.push_back(unique);
  }
  return out;
}

GraphProfile import_graph(const ImportedGraph& graph, const GraphImportOptions& options) {
  if (!(options.rate_scale > 0)) throw std::invalid_argument("--rate-scale must be above 0");
  if (!(options.default_rate_bps > 0))
    throw std::invalid_argument("--default-rate must be above 0");
  if (graph.nodes.size() < 2) throw std::invalid_argument("fewer than two nodes: no lab to make");
  GraphProfile out;
  ImportedGraph g = graph;
  std::erase_if(g.edges, [&](const GraphEdge& e) {
    const bool loop = e.a == e.b;
    out.self_loops += loop;
    return loop;
  });
  if (g.edges.empty()) throw std::invalid_argument("no links between two different nodes");

  const auto parts = components_of(g);
  out.components = parts.size();
  std::vector<bool> kept(g.nodes.size(), true);
  if (parts.size() > 1) {
    if (!options.largest_component) {
      std::vector<std::string> described;
      for (const auto& p : parts) {
        std::vector<std::string> names;
        for (size_t n : p) names.push_back(shown_name(g.nodes[n]));
        described.push_back("{" + list_of(names, kNamesShown) + "} (" + std::to_string(p.size()) +
                            (p.size() == 1 ? " node)" : " nodes)"));
      }
      throw std::invalid_argument("the graph is not connected: " + std::to_string(parts.size()) +
                                  " components: " + list_of(described, kNamesShown) +
                                  "; --largest-component imports the largest alone");
    }
    std::fill(kept.begin(), kept.end(), false);
    for (size_t n : parts.front()) kept[n] = true;
    out.nodes_left_out = g.nodes.size() - parts.front().size();
  }

  // Names from the nodes kept, so that a left-out node never takes a name first.
  std::vector<GraphNode> kept_nodes;
  std::vector<size_t> new_index(g.nodes.size(), SIZE_MAX);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!kept[n]) continue;
    new_index[n] = kept_nodes.size();
    kept_nodes.push_back(g.nodes[n]);
  }
  out.node_names = zoo_node_names(kept_nodes);

  // Links without coordinates at an end need the default delay: named when there is none.
  const auto located = [](const GraphNode& n) { return n.latitude && n.longitude; };
  std::vector<std::string> unlocated;
  for (size_t n = 0; n < kept_nodes.size(); ++n) {
    if (located(kept_nodes[n])) continue;
    const bool linked = std::any_of(g.edges.begin(), g.edges.end(), [&](const GraphEdge& e) {
      return new_index[e.a] == n || new_index[e.b] == n;
    });
    if (linked) unlocated.push_back(shown_name(kept_nodes[n]));
  }
  if (!unlocated.empty() && !options.default_delay_us) {
    throw std::invalid_argument(
        std::to_string(unlocated.size()) + " linked node(s) have no coordinates (" +
        list_of(unlocated, kNamesShown) + "): give --default-delay D for their links");
  }

  // One link per pair, in the order of the pair's first edge; parallel edges add rates.
  std::map<std::pair<size_t, size_t>, size_t> link_of;
  for (const auto& e : g.edges) {
    if (!kept[e.a] || !kept[e.b]) continue;
    const size_t a = new_index[e.a], b = new_index[e.b];
    const auto key = std::minmax(a, b);
    const double rate = e.speed_bps.value_or(options.default_rate_bps) * options.rate_scale;
    if (const auto it = link_of.find(key); it != link_of.end()) {
      ImportedLink& l = out.links[it->second];
      l.rate_bps += rate;
      l.rate_given = l.rate_given && e.speed_bps.has_value();
      ++l.parallel;
      ++out.merged_edges;
      continue;
    }
    ImportedLink l;
    l.a = out.node_names[a];
    l.b = out.node_names[b];
    l.rate_bps = rate;
    l.rate_given = e.speed_bps.has_value();
    const GraphNode &na = kept_nodes[a], &nb = kept_nodes[b];
    if (located(na) && located(nb)) {
      l.distance_km = great_circle_km(*na.latitude, *na.longitude, *nb.latitude, *nb.longitude);
      l.delay_us = std::round(l.distance_km / kFibreKmPerUs);
    } else {
      l.delay_us = *options.default_delay_us;
    }
    link_of[key] = out.links.size();
    out.links.push_back(l);
  }
  for (const auto& l : out.links) {
    out.default_rate_links += !l.rate_given;
    out.default_delay_links += l.distance_km < 0;
  }

  std::ostringstream y;
  y << "# Made by: " << one_line(options.command) << "\n"
    << "# From the Internet Topology Zoo (topology-zoo.org; github mroughan/InternetTopologyZoo),\n"
    << "# " << one_line(options.source)
    << (graph.name.empty() ? "" : ", network \"" + one_line(graph.name) + "\"") << ": CC BY 4.0,\n"
    << "# S. Knight et al., \"The Internet Topology Zoo\", IEEE JSAC 29(9), 2011.\n"
    << "# Delay: great-circle distance between the ends at the speed of light in fibre\n"
    << "# (c/1.468, 4.897 us per km); " << out.default_delay_links
    << " link(s) without coordinates: "
    << (options.default_delay_us ? figure(*options.default_delay_us, 0) + " us" : "none") << ".\n"
    << "# Rate: LinkSpeedRaw where given, else " << rate_text(options.default_rate_bps) << " ("
    << out.default_rate_links << " link(s)); times " << options.rate_scale
    << ".\n# Parallel links summed (" << out.merged_edges << " merged), self-loops left out ("
    << out.self_loops << ")";
  if (out.nodes_left_out > 0)
    y << ", the largest of " << out.components << " components (" << out.nodes_left_out
      << " node(s) left out)";
  y << ".\n# Rules: docs/topologies.md\n"
    << "lab: " << options.lab << "\n"
    << "nodes:\n";
  for (size_t n = 0; n < kept_nodes.size(); ++n) {
    y << "  " << out.node_names[n] << ": {}  # "
      << one_line(kept_nodes[n].label.empty() ? "id " + kept_nodes[n].id : kept_nodes[n].label);
    if (located(kept_nodes[n]))
      y << " (" << figure(*kept_nodes[n].latitude, 5) << ", " << figure(*kept_nodes[n].longitude, 5)
        << ")";
    y << "\n";
  }
  y << "links:\n";
  for (const auto& l : out.links) {
    y << "  - {endpoints: [" << l.a << ", " << l.b << "], bandwidth: " << rate_text(l.rate_bps)
      << ", delay: " << figure(l.delay_us, 0) << "us}  # "
      << (l.distance_km >= 0 ? figure(l.distance_km, 0) + " km" : "no coordinates")
      << (l.rate_given ? "" : ", default rate")
      << (l.parallel > 1 ? ", " + std::to_string(l.parallel) + " links" : "") << "\n";
  }
  out.yaml = y.str();
  return out;
}

}  // namespace testbed
