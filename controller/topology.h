// The topology model: pure data parsed from a profile, with no knowledge of the kernel.
// Mirrors what the user wrote; the planner derives everything else (names, addresses,
// routes, qdisc sizes).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ipv4.h"
#include "units.h"

namespace testbed {

// Where a value came from, so that later checks can still point at the file.
struct SourcePos {
  int line = 0;
  int column = 0;
};

// Shaping of one direction of a link, fully resolved (defaults and overrides applied).
struct DirectionParams {
  Rate rate;
  Duration delay;
  Duration jitter;
  Fraction loss;
  std::optional<QueueSize> queue;  // unset: the planner sizes it from the bandwidth-delay product
  bool operator==(const DirectionParams&) const = default;
};

struct Node {
  std::string name;
  SourcePos pos;
};

struct Link {
  size_t a = 0;  // index into Topology::nodes
  size_t b = 0;
  DirectionParams a2b;
  DirectionParams b2a;
  SourcePos pos;
};

enum class RouteMetric { kHops, kDelay };

struct Topology {
  std::string source_file;
  std::string lab;
  Ipv4Prefix pool{Ipv4Address{0xC6120000}, 15};  // 198.18.0.0/15, RFC 2544 benchmarking space
  RouteMetric metric = RouteMetric::kHops;
  std::vector<Node> nodes;
  std::vector<Link> links;
};

}  // namespace testbed
