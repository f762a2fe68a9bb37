// A profile's `partitions:`: sets of nodes cut from the rest for a while, as real WANs lose
// a region. Each becomes, on every link with one end inside and one outside, both
// directions' `faults` (down at `at`, up at `heal`); partitions that overlap in time on one
// direction merge into one down interval. Checked against the links' own schedules: a
// partition may not cut a direction while its schedule has it down, or across a flapping
// link (the down intervals would overlap, and which one ends it would be ambiguous).
#pragma once

#include <yaml-cpp/yaml.h>

#include "controller/topology/schedule.h"
#include "controller/topology/topology.h"

namespace testbed {

// Reads `node` (a list of {nodes, at, heal}) into topo.partitions and the crossing
// directions' faults. Errors go to `error`, positioned; nothing is changed after one.
void parse_partitions(const YAML::Node& node, Topology& topo, const YamlErrorSink& error);

// A direction's fault changes with at_us in [from_us, to_us), in time order.
std::vector<ScheduleChange> fault_changes(const DirectionParams& d, int64_t from_us, int64_t to_us);

}  // namespace testbed
