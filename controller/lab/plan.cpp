#include "plan.h"

#include "overloaded.h"
#include "schedule.h"
#include "step_json.h"

namespace testbed {
namespace {

std::string queue_str(const QueueLimit& q) {
  return std::to_string(q.limit) + (q.unit == QueueLimit::Unit::kBytes ? "b" : "pkt");
}

nlohmann::json queue_json(const QueueLimit& q) {
  return {{"limit", q.limit}, {"unit", q.unit == QueueLimit::Unit::kBytes ? "bytes" : "packets"}};
}

}  // namespace

nlohmann::json htb_to_json(const HtbShaping& h) {
  nlohmann::json j = {{"rate_bits_per_s", h.rate_bytes_per_s * 8},
                      {"burst_bytes", h.burst_bytes},
                      {"quantum_bytes", h.quantum_bytes},
                      {"queue", queue_json(h.queue)}};
  if (h.netem) {
    j["netem"] = {{"delay_us", h.netem->delay_us},
                  {"jitter_us", h.netem->jitter_us},
                  {"loss", h.netem->loss},
                  {"limit_packets", h.netem->limit_packets}};
  }
  return j;
}

HtbShaping htb_from_json(const nlohmann::json& j) {
  HtbShaping h;
  h.rate_bytes_per_s = j.at("rate_bits_per_s").get<uint64_t>() / 8;
  h.burst_bytes = j.at("burst_bytes").get<uint32_t>();
  h.quantum_bytes = j.at("quantum_bytes").get<uint32_t>();
  h.queue.limit = j.at("queue").at("limit").get<uint32_t>();
  h.queue.unit =
      j.at("queue").at("unit") == "bytes" ? QueueLimit::Unit::kBytes : QueueLimit::Unit::kPackets;
  if (j.contains("netem")) {
    const auto& n = j["netem"];
    h.netem = NetemParams{n.at("delay_us").get<uint32_t>(), n.at("jitter_us").get<uint32_t>(),
                          n.at("loss").get<double>(), n.at("limit_packets").get<uint32_t>()};
  }
  return h;
}

const char* backend_name(ImpairmentBackend b) {
  switch (b) {
    case ImpairmentBackend::kNetem:
      return "netem";
    case ImpairmentBackend::kDelayLine:
      return "delayline";
    case ImpairmentBackend::kAuto:
      break;
  }
  return "auto";
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
                      {"htb", htb_to_json(d.htb)}};
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
                               [](const ShapeEgress&) { return "shape_egress"; },
                               [](const AddRoute&) { return "add_route"; }},
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
          [](const ShapeEgress& s) {
            return "htb " + s.dev + "@" + s.ns + " rate " +
                   format_rate(Rate{s.htb.rate_bytes_per_s * 8}) + " burst " +
                   std::to_string(s.htb.burst_bytes) + "b queue " + queue_str(s.htb.queue);
          },
          [](const AddRoute& s) {
            return "route " + s.route.dst.str() + " via " + s.route.via.str() + " dev " +
                   s.route.dev + " src " + s.route.src.str() + " in " + s.ns;
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

nlohmann::json plan_to_json(const Plan& plan) {
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
  j["delay_lines"] = nlohmann::json::array();
  for (const auto& dl : plan.delay_lines) {
    nlohmann::json q = nlohmann::json::array();
    for (const auto& x : dl.queues) {
      q.push_back({{"queue", x.num},
                   {"delay_us", x.delay_us},
                   {"jitter_us", x.jitter_us},
                   {"seed", x.seed},
                   {"reorder", x.reorder}});
    }
    j["delay_lines"].push_back({{"node", dl.node}, {"namespace", dl.ns}, {"queues", q}});
  }
  for (const auto& n : plan.nodes) {
    j["nodes"].push_back({{"name", n.name}, {"namespace", n.ns}, {"address", n.address.str()}});
  }
  j["links"] = nlohmann::json::array();
  for (const auto& l : plan.links) {
    j["links"].push_back({{"index", l.index},
                          {"a", l.a},
                          {"b", l.b},
                          {"if_a", l.if_a},
                          {"if_b", l.if_b},
                          {"subnet", l.subnet.str()},
                          {"a2b", direction_json(l.a2b)},
                          {"b2a", direction_json(l.b2a)}});
  }
  j["routes"] = nlohmann::json::array();
  for (const auto& r : plan.routes) {
    nlohmann::json rj = route_to_json(r.route);
    rj["node"] = r.node;
    rj["destination"] = r.destination;
    rj["path"] = r.path;
    rj["cost"] = r.cost;
    j["routes"].push_back(rj);
  }
  j["steps"] = nlohmann::json::array();
  for (const auto& step : plan.steps) j["steps"].push_back(step_to_json(step));
  j["notes"] = plan.notes;
  return j;
}

}  // namespace testbed
