// The placement graph of a topology profile: its nodes, and its links at their configured
// (initial) rates. Schedules are ignored: APSP places the server once, on the rates known
// before training (the paper's links are static).
#pragma once

#include "controller/placement/placement_graph.h"
#include "controller/topology/topology.h"

namespace testbed::placement {

PlacementGraph graph_of(const Topology& t);

}  // namespace testbed::placement
