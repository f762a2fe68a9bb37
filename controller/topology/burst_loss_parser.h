// A direction's bursty loss in a profile: `loss` given as the Gilbert-Elliott model
// (netns/burst_loss.h) instead of a percentage.
//
//   loss: {gilbert_elliott: {p: 1%, r: 25%}}                       # bursts of mean 4 packets
//   loss: {gilbert_elliott: {p: 1%, r: 25%, bad: 80%, good: 0.1%}}
//
// p and r are the per-packet chances of entering and leaving the bad state; `bad` and
// `good` the loss in each (defaults 100% and 0%: Gilbert's model).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>

#include "controller/topology/schedule.h"
#include "netns/burst_loss.h"

namespace testbed {

// Reads the mapping under `loss`. Errors go to `error`, positioned: a key other than
// gilbert_elliott's four, a probability outside 0..100%, a missing p or r, an r of 0 (the
// bad state would never end) or a model that loses nothing.
std::optional<GilbertElliott> parse_burst_loss(const YAML::Node& loss, const YamlErrorSink& error);

// "gilbert_elliott p 1% r 25% bad 100% good 0%": the plan's text and `status`.
std::string format_burst_loss(const GilbertElliott& m);

}  // namespace testbed
