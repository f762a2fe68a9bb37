#include "controller/topology/import/graph_file.h"

#include <igraph.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace testbed {
namespace {

// igraph reports errors through a handler (by default, one that aborts): ours keeps the
// reasons for the exception and frees what the failed call had allocated, as igraph asks
// of a handler that returns.
thread_local std::string t_reasons;

void keep_reason(const char* reason, const char* /*file*/, int /*line*/, igraph_error_t code) {
  if (!t_reasons.empty()) t_reasons += "; ";
  t_reasons += reason && *reason ? reason : igraph_strerror(code);
  IGRAPH_FINALLY_FREE();
}

void ignore_warning(const char*, const char*, int) {}

void set_up_igraph() {
  static std::once_flag once;
  std::call_once(once, [] {
    igraph_set_attribute_table(&igraph_cattribute_table);
    igraph_set_error_handler(keep_reason);
    igraph_set_warning_handler(ignore_warning);
  });
}

// A graph igraph made, destroyed with it; a failed read makes none (igraph frees what it
// had allocated).
struct Graph {
  igraph_t g;
  bool made = false;
  ~Graph() {
    if (made) igraph_destroy(&g);
  }
};

// Attribute names by kind (vertex, edge, graph) and their types.
struct Attributes {
  std::map<std::string, int> graph, vertex, edge;
};

Attributes attributes_of(const igraph_t& g) {
  igraph_strvector_t names[3];
  igraph_vector_int_t types[3];
  for (int i = 0; i < 3; ++i) {
    igraph_strvector_init(&names[i], 0);
    igraph_vector_int_init(&types[i], 0);
  }
  igraph_cattribute_list(&g, &names[0], &types[0], &names[1], &types[1], &names[2], &types[2]);
  Attributes out;
  std::map<std::string, int>* by_kind[3] = {&out.graph, &out.vertex, &out.edge};
  for (int i = 0; i < 3; ++i) {
    for (igraph_integer_t k = 0; k < igraph_strvector_size(&names[i]); ++k)
      (*by_kind[i])[igraph_strvector_get(&names[i], k)] = static_cast<int>(VECTOR(types[i])[k]);
    igraph_strvector_destroy(&names[i]);
    igraph_vector_int_destroy(&types[i]);
  }
  return out;
}

// A number, whether the file typed the attribute as one or as text; none when missing.
std::optional<double> number(const igraph_t& g, const std::map<std::string, int>& types,
                             const char* name, igraph_integer_t i, bool edge) {
  const auto t = types.find(name);
  if (t == types.end()) return std::nullopt;
  double v = NAN;
  if (t->second == IGRAPH_ATTRIBUTE_NUMERIC) {
    v = edge ? EAN(&g, name, i) : VAN(&g, name, i);
  } else if (t->second == IGRAPH_ATTRIBUTE_STRING) {
    const char* s = edge ? EAS(&g, name, i) : VAS(&g, name, i);
    char* end = nullptr;
    v = s && *s ? std::strtod(s, &end) : NAN;
    if (end && *end) v = NAN;
  }
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::string text(const igraph_t& g, const std::map<std::string, int>& types, const char* name,
                 igraph_integer_t i) {
  const auto t = types.find(name);
  if (t == types.end()) return "";
  if (t->second == IGRAPH_ATTRIBUTE_STRING) return VAS(&g, name, i);
  if (t->second == IGRAPH_ATTRIBUTE_NUMERIC) {
    const double v = VAN(&g, name, i);
    if (std::isfinite(v) && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
    return std::isfinite(v) ? std::to_string(v) : "";
  }
  return "";
}

}  // namespace

ImportedGraph read_graph_file(const std::string& path, GraphFormat format) {
  set_up_igraph();
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "r"), std::fclose);
  if (!file) throw std::invalid_argument(path + ": " + std::strerror(errno));
  t_reasons.clear();
  Graph graph;
  const igraph_error_t read = format == GraphFormat::graphml
                                  ? igraph_read_graph_graphml(&graph.g, file.get(), 0)
                                  : igraph_read_graph_gml(&graph.g, file.get());
  if (read != IGRAPH_SUCCESS) {
    const std::string why = t_reasons.empty() ? igraph_strerror(read) : t_reasons;
    throw std::invalid_argument(path + ": not a " +
                                (format == GraphFormat::graphml ? "GraphML" : "GML") +
                                " graph: " + why);
  }
  graph.made = true;
  const igraph_t& g = graph.g;
  const Attributes attrs = attributes_of(g);
  ImportedGraph out;
  for (const char* key : {"label", "Network"}) {
    const auto t = attrs.graph.find(key);
    if (t != attrs.graph.end() && t->second == IGRAPH_ATTRIBUTE_STRING && out.name.empty())
      out.name = GAS(&g, key);
  }
  for (igraph_integer_t v = 0; v < igraph_vcount(&g); ++v) {
    GraphNode n;
    n.id = text(g, attrs.vertex, "id", v);
    if (n.id.empty()) n.id = std::to_string(v);
    n.label = text(g, attrs.vertex, "label", v);
    const auto lat = number(g, attrs.vertex, "Latitude", v, false);
    const auto lon = number(g, attrs.vertex, "Longitude", v, false);
    if (lat && lon && std::abs(*lat) <= 90 && std::abs(*lon) <= 180) {
      n.latitude = lat;
      n.longitude = lon;
    }
    out.nodes.push_back(std::move(n));
  }
  for (igraph_integer_t e = 0; e < igraph_ecount(&g); ++e) {
    igraph_integer_t from = 0, to = 0;
    igraph_edge(&g, e, &from, &to);
    GraphEdge edge{static_cast<size_t>(from), static_cast<size_t>(to), std::nullopt};
    if (const auto speed = number(g, attrs.edge, "LinkSpeedRaw", e, true); speed && *speed > 0)
      edge.speed_bps = speed;
    out.edges.push_back(edge);
  }
  return out;
}

}  // namespace testbed
