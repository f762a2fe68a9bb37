// A plan: the ordered kernel steps that realize a topology, plus the derived facts (names,
// addresses, shaping, routes) that `plan`, `status` and the state file show. Pure data.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "kernel.h"
#include "topology.h"

namespace testbed {

struct CreateNamespace {
  std::string ns;
};
struct CreateVeth {
  std::string ns_a, if_a, ns_b, if_b;
};
struct SetLinkUp {
  std::string ns, dev;
};
struct AddAddress {
  std::string ns, dev;
  Ipv4Prefix address;  // interface address with its prefix length
};
struct EnableForwarding {
  std::string ns;
};
struct ShapeEgress {
  std::string ns, dev;
  HtbShaping htb;
};
struct AddRoute {
  std::string ns;
  RouteSpec route;
};

using Step = std::variant<CreateNamespace, CreateVeth, SetLinkUp, AddAddress, EnableForwarding,
                          ShapeEgress, AddRoute>;

std::string step_op(const Step& step);        // "create_namespace", ...
std::string describe_step(const Step& step);  // one line for people
// The namespaces a step acts in (one, or two for a veth pair).
std::vector<std::string> step_namespaces(const Step& step);

struct PlannedNode {
  std::string name;
  std::string ns;
  Ipv4Address address;
};

struct PlannedDirection {
  std::string from, to;  // node names
  std::string ns, dev;   // where the egress shaping sits
  DirectionParams params;
  HtbShaping htb;
};

struct PlannedLink {
  size_t index = 0;
  std::string a, b;
  std::string if_a, if_b;
  Ipv4Prefix subnet;
  PlannedDirection a2b, b2a;
};

struct PlannedRoute {
  std::string node, destination;  // node names
  RouteSpec route;
  std::vector<std::string> path;  // node names from `node` to `destination`
  int64_t cost = 0;
};

struct Plan {
  std::string lab;
  std::string source_file;
  Ipv4Prefix pool;
  RouteMetric metric = RouteMetric::kHops;
  std::vector<PlannedNode> nodes;
  std::vector<PlannedLink> links;
  std::vector<PlannedRoute> routes;
  std::vector<Step> steps;
  std::vector<std::string> notes;  // what the plan declares but does not (yet) apply
};

nlohmann::json plan_to_json(const Plan& plan);

}  // namespace testbed
