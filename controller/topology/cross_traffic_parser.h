// Reads a profile's `cross_traffic:` (cross_traffic.h) strictly: every mistake named at its
// line and column, as the rest of a profile.
#pragma once

#include <yaml-cpp/yaml.h>

#include "controller/topology/cross_traffic.h"
#include "controller/topology/schedule.h"

namespace testbed {

// Reads `list` against the lab's node names; errors go to `error`, positioned, and no
// entry is returned for one with an error. `lab_seed` seeds a poisson entry without its own.
std::vector<CrossTraffic> parse_cross_traffic(const YAML::Node& list,
                                              const std::vector<std::string>& nodes,
                                              uint64_t lab_seed, const YamlErrorSink& error);

}  // namespace testbed
