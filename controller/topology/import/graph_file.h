// A network topology file read into a graph (zoo_graph.h): GraphML or GML, as the Internet
// Topology Zoo publishes both, read by igraph (Debian's libigraph-dev, whose GraphML reader
// is libxml2's parser): a well-kept reader of both formats, with their quirks, rather than
// parsers of our own. What is read: each node's id, label, Latitude and Longitude; each
// edge's ends and LinkSpeedRaw; the graph's label (or Network).
#pragma once

#include <string>

#include "controller/topology/import/zoo_graph.h"

namespace testbed {

enum class GraphFormat { graphml, gml };

// Throws std::invalid_argument naming the file and what igraph said of it: a file that
// cannot be read, is not well-formed, or is not a graph of that format.
ImportedGraph read_graph_file(const std::string& path, GraphFormat format);

}  // namespace testbed
