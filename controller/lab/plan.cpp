#include "controller/lab/plan.h"

#include <set>

#include "controller/lab/overloaded.h"
#include "controller/lab/step_json.h"
#include "controller/topology/burst_loss_parser.h"
#include "controller/topology/node_events.h"
#include "controller/topology/schedule.h"

namespace testbed {
namespace {

std::string queue_str(const QueueLimit& q) {
  return std::to_string(q.limit) + (q.unit == QueueLimit::Unit::kBytes ? "b" : "pkt");
}

nlohmann::json queue_json(const QueueLimit& q) {
  return {{"limit", q.limit}, {"unit", q.unit == QueueLimit::Unit::kBytes ? "bytes" : "packets"}};
}

}  // namespace

nlohmann::json shaping_to_json(const RateShaping& h) {
  nlohmann::json j = {{"rate_bits_per_s", h.rate_bytes_per_s * 8},
                      {"burst_bytes", h.burst_bytes},
                      {"queue", queue_json(h.queue)}};
  return j;
}

RateShaping shaping_from_json(const nlohmann::json& j) {
  RateShaping h;
  h.rate_bytes_per_s = j.at("rate_bits_per_s").get<uint64_t>() / 8;
  h.burst_bytes = j.at("burst_bytes").get<uint32_t>();
  h.queue.limit = j.at("queue").at("limit").get<uint32_t>();
  h.queue.unit =
      j.at("queue").at("unit") == "bytes" ? QueueLimit::Unit::kBytes : QueueLimit::Unit::kPackets;
  return h;
}

nlohmann::json burst_loss_to_json(const GilbertElliott& m) {
  return {{"p", m.p}, {"r", m.r}, {"bad", m.bad_loss}, {"good", m.good_loss}};
}

GilbertElliott burst_loss_from_json(const nlohmann::json& j) {
  return {j.at("p").get<double>(), j.at("r").get<double>(), j.at("bad").get<double>(),
          j.at("good").get<double>()};
}

nlohmann::json netem_to_json(const IngressNetem& n) {
  nlohmann::json j = {{"ifb", n.ifb},
                      {"delay_us", n.netem.delay_us},
                      {"jitter_us", n.netem.jitter_us},
                      {"loss", n.netem.loss},
                      {"limit_packets", n.netem.limit_packets},
                      {"keep_order", n.netem.keep_order}};
  if (n.netem.burst) j["gilbert_elliott"] = burst_loss_to_json(*n.netem.burst);
  return j;
}

IngressNetem netem_from_json(const nlohmann::json& j) {
  IngressNetem n;
  n.ifb = j.at("ifb").get<std::string>();
  n.netem.delay_us = j.at("delay_us").get<uint32_t>();
  n.netem.jitter_us = j.at("jitter_us").get<uint32_t>();
  n.netem.loss = j.at("loss").get<double>();
  n.netem.limit_packets = j.at("limit_packets").get<uint32_t>();
  n.netem.keep_order = j.at("keep_order").get<bool>();
  if (j.contains("gilbert_elliott")) n.netem.burst = burst_loss_from_json(j["gilbert_elliott"]);
  return n;
}

namespace {

nlohmann::json direction_json(const PlannedDirection& d) {
  nlohmann::json j = {{"from", d.from},
                      {"to", d.to},
                      {"namespace", d.ns},
                      {"dev", d.dev},
                      {"bandwidth", format_rate(d.params.rate)},
                      {"delay", format_duration(d.params.delay)},
                      {"jitter", format_duration(d.params.jitter)},
                      {"loss", format_percent(d.params.loss)},
                      {"rate_bits_per_s", d.params.rate.bits_per_s},
                      {"delay_us", d.params.delay.us},
                      {"jitter_us", d.params.jitter.us},
                      {"loss_fraction", d.params.loss.value},
                      {"reorder", d.params.reorder},
                      {"receiver", {{"namespace", d.rx_ns}, {"dev", d.rx_dev}}},
                      {"stream", d.stream},
                      {"queue", d.queue},
                      {"schedule", schedule_to_json(d.params.schedule)},
                      {"shaping", shaping_to_json(d.shaping)}};
  if (d.params.burst_loss) {
    j["loss"] = format_burst_loss(*d.params.burst_loss);
    j["gilbert_elliott"] = burst_loss_to_json(*d.params.burst_loss);
  }
  if (d.netem) j["netem"] = netem_to_json(*d.netem);
  if (!d.params.faults.empty()) j["faults"] = changes_to_json(d.params.faults);  // partitions
  return j;
}

}  // namespace

std::string step_op(const Step& step) {
  return std::visit(Overloaded{[](const CreateNamespace&) { return "create_namespace"; },
                               [](const CreateVeth&) { return "create_veth"; },
                               [](const ExpectInterface&) { return "expect_interface"; },
                               [](const CreateVxlan&) { return "create_vxlan"; },
                               [](const SetLinkUp&) { return "set_link_up"; },
                               [](const AddAddress&) { return "add_address"; },
                               [](const SetSysctl&) { return "set_sysctl"; },
                               [](const AddIngressHooks&) { return "add_ingress_hooks"; },
                               [](const AddIngressNetem&) { return "add_ingress_netem"; },
                               [](const ShapeEgress&) { return "shape_egress"; },
                               [](const AddRoutes&) { return "add_routes"; },
                               [](const AddTrafficCounters&) { return "add_traffic_counters"; }},
                    step);
}

std::string describe_step(const Step& step) {
  return std::visit(
      Overloaded{
          [](const CreateNamespace& s) { return "namespace " + s.ns; },
          [](const CreateVeth& s) {
            return "veth " + s.if_a + "@" + s.ns_a + " <-> " + s.if_b + "@" + s.ns_b;
          },
          [](const ExpectInterface& s) {
            return "expect " + s.dev + "@" + s.ns + " (peer " + s.peer_dev + "@" + s.peer_ns +
                   " on host " + s.peer_host + ")";
          },
          [](const CreateVxlan& s) {
            return "vxlan " + s.dev + "@" + s.ns + " vni " + std::to_string(s.spec.vni) + " " +
                   s.spec.local.str() + " -> " + s.spec.remote.str() + ":" +
                   std::to_string(s.spec.port) + " (host " + s.peer_host + ")";
          },
          [](const SetLinkUp& s) { return "link up " + s.dev + "@" + s.ns; },
          [](const AddAddress& s) {
            return "address " + s.address.str() + " " + s.dev + "@" + s.ns;
          },
          [](const SetSysctl& s) { return "sysctl " + s.key + " = " + s.value + " in " + s.ns; },
          [](const AddIngressHooks& s) {
            std::string out = "delay hooks in " + s.ns + ":";
            for (const auto& [dev, d] : s.hooks) {
              out += " " + dev + " (nfqueue " + std::to_string(d.queue) + ", loss " +
                     format_percent(Fraction{d.loss}) + ")";
            }
            return out;
          },
          [](const AddIngressNetem& s) {
            return "netem " + s.netem.ifb + "@" + s.ns + " (from " + s.dev + ") delay " +
                   format_duration(Duration{s.netem.netem.delay_us}) + " jitter " +
                   format_duration(Duration{s.netem.netem.jitter_us}) + " loss " +
                   (s.netem.netem.burst ? format_burst_loss(*s.netem.netem.burst)
                                        : format_percent(Fraction{s.netem.netem.loss})) +
                   " limit " + std::to_string(s.netem.netem.limit_packets) + "pkt";
          },
          [](const ShapeEgress& s) {
            return "tbf " + s.dev + "@" + s.ns + " rate " +
                   format_rate(Rate{s.shaping.rate_bytes_per_s * 8}) + " burst " +
                   std::to_string(s.shaping.burst_bytes) + "b queue " + queue_str(s.shaping.queue);
          },
          [](const AddRoutes& s) {
            std::string out = std::to_string(s.routes.size()) + " routes in " + s.ns;
            if (!s.routes.empty()) {
              const RouteSpec& r = s.routes.front();
              out += " (first: " + r.dst.str() + " via " + r.via.str() + " dev " + r.dev + " src " +
                     r.src.str() + ")";
            }
            return out;
          },
          [](const AddTrafficCounters& s) {
            std::string out = "cross-traffic counters in " + s.ns + " (ports " +
                              std::to_string(s.counters.first_port) + "-" +
                              std::to_string(s.counters.last_port) + "):";
            for (const auto& dev : s.counters.devs) out += " " + dev;
            return out;
          }},
      step);
}

std::vector<std::string> step_namespaces(const Step& step) {
  return std::visit(Overloaded{[](const CreateVeth& s) {
                                 return std::vector{s.ns_a, s.ns_b};
                               },
                               [](const auto& s) { return std::vector{s.ns}; }},
                    step);
}

size_t route_count(const Plan& plan) {
  if (!plan.routes) return 0;
  size_t n = 0;
  for (const auto& node : plan.nodes) {
    if (const auto i = plan.routes->index(node.name)) n += plan.routes->count_from(*i);
  }
  return n;
}

size_t kernel_route_count(const Plan& plan) {
  size_t n = 0;
  for (const Step& step : plan.steps) {
    if (const auto* r = std::get_if<AddRoutes>(&step)) n += r->routes.size();
  }
  return n;
}

std::vector<PlannedRoute> planned_routes(const Plan& plan) {
  std::vector<PlannedRoute> out;
  if (!plan.routes) return out;
  for (const auto& node : plan.nodes) {
    const auto src = plan.routes->index(node.name);
    if (!src) continue;
    for (size_t dst = 0; dst < plan.routes->nodes().size(); ++dst) {
      if (auto r = plan.routes->route(*src, dst)) out.push_back(std::move(*r));
    }
  }
  return out;
}

nlohmann::json routes_to_json(const RouteBook& book, const std::vector<std::string>& nodes,
                              bool with_routes) {
  size_t count = 0;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& name : nodes) {
    const auto src = book.index(name);
    if (!src) continue;
    count += book.count_from(*src);
    if (!with_routes) continue;
    // Each route with the prefix its node's kernel holds it under (the aggregated table).
    const std::vector<RouteSpec> held = book.kernel_routes_from(*src);
    std::set<Ipv4Prefix> prefixes;
    for (const RouteSpec& k : held) prefixes.insert(k.dst);
    for (size_t dst = 0; dst < book.nodes().size(); ++dst) {
      const auto r = book.route(*src, dst);
      if (!r) continue;
      nlohmann::json entry = planned_route_to_json(*r);
      for (int length = r->route.dst.length; length >= 0; --length) {
        const Ipv4Prefix p{Ipv4Prefix{r->route.dst.address, length}.network(), length};
        if (prefixes.count(p)) {
          entry["kernel_prefix"] = p.str();
          break;
        }
      }
      list.push_back(std::move(entry));
    }
  }
  if (with_routes) return list;
  return {{"rule", book.rule()}, {"count", count}};
}

nlohmann::json plan_node_to_json(const PlannedNode& n) {
  nlohmann::json node = {{"name", n.name}, {"namespace", n.ns}, {"address", n.address.str()}};
  for (const auto& ev : n.events) {
    node["events"].push_back(
        {{"at_us", ev.at_us}, {"event", node_event_name(ev.kind)}, {"for_us", ev.for_us}});
    if (ev.kind == NodeEvent::Kind::kCpus)
      node["events"].back()["cpus"] = ev.cpus ? nlohmann::json(*ev.cpus) : nlohmann::json();
  }
  if (n.compute.any()) node["compute"] = compute_to_json(n.compute);
  if (n.straggler)
    node["straggler"] = {{"chance", n.straggler->chance},
                         {"slowdown", n.straggler->slowdown},
                         {"every_us", n.straggler->every_us},
                         {"seed", n.straggler->seed}};
  return node;
}

nlohmann::json plan_link_to_json(const PlannedLink& l) {
  return {{"index", l.index},
          {"a", l.a},
          {"b", l.b},
          {"if_a", l.if_a},
          {"if_b", l.if_b},
          {"subnet", l.subnet.str()},
          {"a2b", direction_json(l.a2b)},
          {"b2a", direction_json(l.b2a)}};
}

nlohmann::json plan_nodes_to_json(const Plan& plan) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& n : plan.nodes) out.push_back(plan_node_to_json(n));
  return out;
}

nlohmann::json plan_links_to_json(const Plan& plan) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& l : plan.links) out.push_back(plan_link_to_json(l));
  return out;
}

nlohmann::json plan_to_json(const Plan& plan, bool with_routes) {
  nlohmann::json j;
  j["lab"] = plan.lab;
  j["source"] = plan.source_file;
  j["pool"] = plan.pool.str();
  j["routing"] = plan.metric == RouteMetric::kHops ? "hops" : "delay";
  j["backend"] = backend_name(plan.backend);
  j["backend_reason"] = plan.backend_reason;
  j["seed"] = plan.seed;
  j["workload"] = plan.workload;
  j["has_schedules"] = plan.has_schedules;
  if (plan.release_window_us) j["release_window_us"] = *plan.release_window_us;
  if (plan.reroute_convergence_us)
    j["reroute"] = {{"convergence_us", *plan.reroute_convergence_us}};
  if (!plan.traffic.empty()) {
    j["cross_traffic"] = nlohmann::json::array();
    for (const auto& t : plan.traffic) j["cross_traffic"].push_back(traffic_to_json(t));
  }
  j["delay_lines"] = nlohmann::json::array();
  for (const auto& dl : plan.delay_lines) {
    nlohmann::json q = nlohmann::json::array();
    for (const auto& x : dl.queues) {
      q.push_back({{"queue", x.num},
                   {"delay_us", x.delay_us},
                   {"jitter_us", x.jitter_us},
                   {"seed", x.seed},
                   {"reorder", x.reorder}});
      if (x.burst) q.back()["gilbert_elliott"] = burst_loss_to_json(*x.burst);
    }
    j["delay_lines"].push_back({{"node", dl.node}, {"namespace", dl.ns}, {"queues", q}});
  }
  j["nodes"] = plan_nodes_to_json(plan);
  j["links"] = plan_links_to_json(plan);
  std::vector<std::string> names;
  for (const auto& n : plan.nodes) names.push_back(n.name);
  j["routes"] =
      plan.routes ? routes_to_json(*plan.routes, names, with_routes) : nlohmann::json::array();
  // What the kernels hold them as, known while the plan's steps carry their routes.
  if (j["routes"].is_object()) {
    if (const size_t held = kernel_route_count(plan); held > 0) {
      j["routes"]["kernel_prefixes"] = held;
    } else if (plan.route_summary.is_object() && plan.route_summary.contains("kernel_prefixes")) {
      j["routes"]["kernel_prefixes"] = plan.route_summary["kernel_prefixes"];  // read back
    }
  }
  j["steps"] = nlohmann::json::array();
  for (const auto& step : plan.steps) j["steps"].push_back(step_to_json(step));
  j["notes"] = plan.notes;
  if (!plan.fit.is_null()) j["fit"] = plan.fit;
  return j;
}

nlohmann::json compute_to_json(const ComputeLimits& c) {
  nlohmann::json j = nlohmann::json::object();
  if (c.cpus) j["cpus"] = *c.cpus;
  if (!c.cpuset.empty()) j["cpuset"] = c.cpuset;
  if (c.memory_bytes) j["memory_bytes"] = *c.memory_bytes;
  return j;
}

const PlannedNode* plan_node(const Plan& plan, const std::string& name) {
  for (const auto& n : plan.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

std::set<std::string> plan_namespaces(const Plan& plan) {
  std::set<std::string> out;
  for (const auto& n : plan.nodes) out.insert(n.ns);
  return out;
}

}  // namespace testbed
