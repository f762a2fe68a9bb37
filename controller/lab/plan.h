// A plan: the ordered kernel steps that realize a topology, plus the derived facts (names,
// addresses, shaping, routes) that `plan`, `status` and the state file show. Pure data.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "controller/lab/cross_traffic_plan.h"
#include "controller/lab/route_book.h"
#include "controller/topology/topology.h"
#include "netns/kernel.h"

namespace testbed {

struct CreateNamespace {
  std::string ns;
};
struct CreateVeth {
  std::string ns_a, if_a, ns_b, if_b;
};
// One end of a link made by someone else (meshnet, or a VXLAN between hosts) when the
// plan is cut into per-host slices: the slice checks that it is there and never deletes it.
struct ExpectInterface {
  std::string ns, dev;
  std::string peer_host, peer_ns, peer_dev;  // where the other end lives, for messages
};
// The same, made by the testbed itself on plain hosts: a VXLAN end born in the node's
// namespace whose tunnel socket lives in the host's own network (where `up` runs), toward
// the peer host named in the placement's underlay.
struct CreateVxlan {
  std::string ns, dev;
  VxlanSpec spec;
  std::string peer_host;
};
struct SetLinkUp {
  std::string ns, dev;
};
struct AddAddress {
  std::string ns, dev;
  Ipv4Prefix address;  // interface address with its prefix length
};
struct SetSysctl {
  std::string ns;
  std::string key;  // relative to /proc/sys
  std::string value;
};
struct ShapeEgress {
  std::string ns, dev;
  RateShaping shaping;
};
// A node's routes, one per destination, installed together (netlink requests batched);
// undone by deleting every route the testbed owns in the namespace (kernel.h).
struct AddRoutes {
  std::string ns;
  std::vector<RouteSpec> routes;
};
// The receiving side's delay hooks of one namespace (delay-line backend), one per device
// through which delayed directions arrive: installed together, in one iptables transaction.
struct AddIngressHooks {
  std::string ns;
  Kernel::IngressHooks hooks;
};

// The receiving side of one delayed direction (netem backend): an IFB device with netem,
// and the redirect to it from the receiving device (kernel.h, IngressNetem).
struct AddIngressNetem {
  std::string ns, dev;
  IngressNetem netem;
};

// The cross traffic's counters of one namespace (kernel.h, TrafficCounters): on every
// device through which a link arrives, when the lab has cross traffic.
struct AddTrafficCounters {
  std::string ns;
  Kernel::TrafficCounters counters;
};

using Step = std::variant<CreateNamespace, CreateVeth, ExpectInterface, CreateVxlan, SetLinkUp,
                          AddAddress, SetSysctl, ShapeEgress, AddIngressHooks, AddIngressNetem,
                          AddRoutes, AddTrafficCounters>;

std::string step_op(const Step& step);        // "create_namespace", ...
std::string describe_step(const Step& step);  // one line for people
// The namespaces a step acts in (one, or two for a veth pair).
std::vector<std::string> step_namespaces(const Step& step);

struct PlannedNode {
  std::string name;
  std::string ns;
  Ipv4Address address;
  std::vector<NodeEvent> events;  // its schedule (node_events.h), run by the timeline
  ComputeLimits compute;          // its CPUs and memory (node_compute.h), as its cgroup holds
  std::optional<StragglerModel> straggler;  // its share's random slowdowns (straggler.h)
};

nlohmann::json compute_to_json(const ComputeLimits& c);

struct PlannedDirection {
  std::string from, to;       // node names
  std::string ns, dev;        // where the egress shaping sits (the sender)
  std::string rx_ns, rx_dev;  // where the packets arrive (the receiver)
  DirectionParams params;
  RateShaping shaping;
  uint64_t stream = 0;                // seeds this direction's random schedule and jitter
  int queue = -1;                     // NFQUEUE number with the delay-line backend, else -1
  std::optional<IngressNetem> netem;  // with the netem backend, when delayed or lossy
};

// One delay-line process: the queues of every delayed direction arriving at a node.
struct PlannedDelayLine {
  std::string node, ns;
  struct Queue {
    uint16_t num = 0;
    int64_t delay_us = 0, jitter_us = 0;
    uint64_t seed = 0;
    bool reorder = false;
    std::optional<GilbertElliott> burst;  // the delay line's own loss (burst_loss.h)
  };
  std::vector<Queue> queues;
};

struct PlannedLink {
  size_t index = 0;
  std::string a, b;
  std::string if_a, if_b;
  Ipv4Prefix subnet;
  PlannedDirection a2b, b2a;
};

struct Plan {
  std::string lab;
  std::string source_file;
  Ipv4Prefix pool;
  RouteMetric metric = RouteMetric::kHops;
  ImpairmentBackend backend = ImpairmentBackend::kDelayLine;  // as resolved, never kAuto
  std::string backend_reason;
  // `up --release-window`: how early a delay line may release a packet to batch it with
  // the one ahead (see delay_line_main.cpp); unset, the delay line's own default.
  std::optional<int64_t> release_window_us;
  std::optional<int64_t> reroute_convergence_us;  // the profile's `reroute:`; unset: static
  uint64_t seed = 1;
  std::map<std::string, std::string> workload;  // the profile's, for `testbed train`
  std::vector<PlannedNode> nodes;
  std::vector<PlannedLink> links;
  // The whole lab's routes as a rule (route_book.h); a slice shares its lab's book and owns
  // the routes of its own nodes. Null only in a plan made by hand.
  std::shared_ptr<const RouteBook> routes;
  // plan.json's "routes" as read back: {rule, count, kernel_prefixes} (null for a plan made
  // here), so that `status` shows them without making the book again.
  nlohmann::json route_summary;
  std::vector<PlannedDelayLine> delay_lines;
  bool has_schedules = false;
  std::vector<PlannedTraffic> traffic;  // the whole lab's cross traffic (cross_traffic_plan.h)
  std::vector<Step> steps;
  std::vector<std::string> notes;  // what the plan declares but does not (yet) apply
  // The fit to this machine (fit/fit_decision.h's fit_to_json), null when none was asked:
  // its factor is already in every rate above, and `train` scales the model's bytes by it.
  nlohmann::json fit;
};

// The plan's nodes' routes: every route of the whole lab, or a slice's share of them.
size_t route_count(const Plan& plan);
// The prefixes the kernels hold those routes as (aggregated: route_aggregation.h), as the
// plan's steps install them; 0 for a plan read back from plan.json, whose steps do not
// keep them.
size_t kernel_route_count(const Plan& plan);
std::vector<PlannedRoute> planned_routes(const Plan& plan);  // in node, destination order

// Routes are written as their rule and count unless `with_routes` (`plan --routes`), which
// lists every one with its path: at 1000 nodes that is 999,000 records and half a gigabyte.
nlohmann::json plan_to_json(const Plan& plan, bool with_routes = false);
// Its "nodes" and "links", as `status` shows them too; one of each.
nlohmann::json plan_nodes_to_json(const Plan& plan);
nlohmann::json plan_links_to_json(const Plan& plan);
nlohmann::json plan_node_to_json(const PlannedNode& node);
nlohmann::json plan_link_to_json(const PlannedLink& link);
// plan.json read back (plan_from_json.cpp): every field checked by its path; throws
// ContractError (agent/contracts/message_fields.h) naming the first that is missing, of the
// wrong type, out of range or unknown. `routes` is left null: route_book_of makes the book.
Plan plan_from_json(const nlohmann::json& j);
// The same from plan.json's text, each element of its lists (nodes, links, delay lines,
// steps) read as soon as it is parsed and its tree dropped: at 1000 nodes the whole tree
// was tens of megabytes, each page of it a fault, and most of `status`'s reading of the
// plan. Without `with_steps` the steps are checked as JSON but neither built nor read.
// Throws ContractError, "not JSON" when it is not.
Plan plan_from_json_text(const std::string& text, bool with_steps);
// The plan's routes made again from its own nodes and links (a slice's: its own share of
// the graph; the whole lab's book comes from the whole plan). Throws when a link's end is
// not a node of the plan.
RouteBook route_book_of(const Plan& plan);
// The node of that name; null when the plan has none.
const PlannedNode* plan_node(const Plan& plan, const std::string& name);
// The namespaces of the plan's nodes: on a slice of a lab spread over hosts, this host's.
std::set<std::string> plan_namespaces(const Plan& plan);
nlohmann::json routes_to_json(const RouteBook& book, const std::vector<std::string>& nodes,
                              bool with_routes);
nlohmann::json shaping_to_json(const RateShaping& h);
RateShaping shaping_from_json(const nlohmann::json& j);
nlohmann::json burst_loss_to_json(const GilbertElliott& m);
GilbertElliott burst_loss_from_json(const nlohmann::json& j);
nlohmann::json netem_to_json(const IngressNetem& n);
IngressNetem netem_from_json(const nlohmann::json& j);

}  // namespace testbed
