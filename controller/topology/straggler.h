// A straggler as MLfabric's evaluation models one (Sec. 6, its C1-C3: "a worker has an r%
// chance of being slowed down by a factor of s"), as a node's CPU share over time for any
// job (docs/compute.md): each period the node is slowed, with probability `chance`, to its
// share divided by `slowdown`, and otherwise has its whole share.
//
//   nodes:
//     dc4: {cpus: 1, straggler: {chance: 10%, slowdown: 4, every: 1s}}
//
// MLfabric draws per iteration; a lab has no iterations of its own, so the draw is per
// period of the schedule's clock (`every`): with `every` near an iteration's length the two
// readings meet. The k-th draw is a function of the seed, the node and k only, so a run
// repeats exactly and each node straggles on its own.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/topology/node_events.h"
#include "controller/topology/schedule.h"
#include "controller/topology/topology.h"

namespace testbed {

// Reads a node's `straggler`; `cpus` is the node's share (required: the share it is slowed
// from). Errors go to `error`, positioned.
std::optional<StragglerModel> parse_straggler(const YAML::Node& node, const std::string& name,
                                              std::optional<double> cpus, uint64_t default_seed,
                                              const YamlErrorSink& error);

// Whether period k (from k × every) is slowed, for the node with random stream `stream`.
bool straggles(const StragglerModel& m, uint64_t stream, uint64_t k);

// The share's changes in [from_us, to_us): one at each period whose state differs from the
// one before (`slowed`: the state before from_us, updated). Time 0's state is the share.
std::vector<NodeChange> straggler_changes(const StragglerModel& m, double cpus, uint64_t stream,
                                          int64_t from_us, int64_t to_us, bool& slowed);

}  // namespace testbed
