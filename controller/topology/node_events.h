// A node's `schedule:` in a profile: when its processes crash or pause, as a link's
// schedule says when the link changes.
//
//   nodes:
//     chicago:
//       schedule:
//         - {at: 30s, event: crash}
//         - {at: 60s, event: pause, for: 5s}
//         - {at: 90s, event: crash}
//         - {at: 95s, event: restart}
//         - {at: 120s, event: cpus, cpus: 0.25}   # its CPU share (docs/compute.md)
//         - {at: 180s, event: cpus, cpus: all}    # no limit
//
// A restart runs a launched job's crashed ranks again (node_faults.h); it needs a crash
// before it.
//
// A pause always has its length here, so that no schedule leaves a node stopped for good
// (`testbed node pause` without --for, and `resume`, are for people at a terminal).
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <vector>

#include "controller/topology/schedule.h"
#include "controller/topology/topology.h"

namespace testbed {

const char* node_event_name(NodeEvent::Kind kind);  // "crash", "pause", "resume", "restart"
std::optional<NodeEvent::Kind> parse_node_event_kind(const std::string& name);

// Reads a node's `schedule` (a list of {at, event, [for]}). Errors go to `error`, positioned:
// an unknown event, a time not after the start, a pause without its length or overlapping
// another, a `for` on anything but a pause, a restart with no crash before it.
std::vector<NodeEvent> parse_node_schedule(const YAML::Node& node, const std::string& name,
                                           const YamlErrorSink& error);

// A schedule's events as the timeline applies them: each pause followed by its resume.
struct NodeChange {
  int64_t at_us = 0;
  NodeEvent::Kind kind = NodeEvent::Kind::kCrash;
  std::optional<double> cpus;  // a kCpus change's share
};
std::vector<NodeChange> node_changes(const std::vector<NodeEvent>& schedule);

}  // namespace testbed
