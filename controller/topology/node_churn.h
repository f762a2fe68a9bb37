// A node's `churn:` in a profile: a provider's machine that comes and goes, as a random
// flap is a link's. Seeded, so a run can be repeated exactly; expanded when the profile is
// read into the node's schedule as alternating leaves and joins, which an elastic run
// (docs/diloco.md#elastic-membership) takes as any other leave or join.
//
//   nodes:
//     dc3:
//       churn: {up_mean: 120s, away_mean: 60s, seed: 7, until: 1800s}
//
// From the start it is in for a time drawn with mean `up_mean`, then away for one with
// mean `away_mean` (both exponential, as the flap's), and so on until `until` (1 h when
// not given). `seed` defaults to the profile's; each node draws its own stream (from its
// name), so two nodes of one seed do not move together.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "controller/topology/schedule.h"
#include "controller/topology/topology.h"

namespace testbed {

struct ChurnModel {
  int64_t up_mean_us = 0;
  int64_t away_mean_us = 0;
  int64_t until_us = 0;
  uint64_t seed = 0;
};

// The shortest time in or away a draw may give: nodes.json holds a node's last request
// and an elastic run reads it every 0.25 s, so two requests closer than this could fold
// into one. A shorter draw is lengthened to it (said in docs/diloco.md).
constexpr int64_t kMinChurnGapUs = 1000000;

// Reads `churn:`; errors go to `error`, positioned (unknown keys, a mean under 1 s, a
// horizon not after the start). Returns the model, or nothing on an error.
std::optional<ChurnModel> parse_node_churn(const YAML::Node& node, const std::string& name,
                                           uint64_t default_seed, const YamlErrorSink& error);

// The model's leaves and joins for node `name`, in time order, positioned at `pos`.
std::vector<NodeEvent> churn_events(const ChurnModel& m, const std::string& name, SourcePos pos);

}  // namespace testbed
