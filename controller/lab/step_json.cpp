#include "controller/lab/step_json.h"

#include <stdexcept>

#include "controller/lab/overloaded.h"

namespace testbed {
namespace {

using nlohmann::json;

std::string text(const json& j, const char* field) {
  if (!j.contains(field) || !j[field].is_string()) {
    throw std::invalid_argument(std::string("step field '") + field + "' is missing or not text");
  }
  return j[field].get<std::string>();
}

Ipv4Address address(const json& j, const char* field) {
  const auto a = Ipv4Address::parse(text(j, field));
  if (!a) throw std::invalid_argument(std::string("step field '") + field + "' is no address");
  return *a;
}

Ipv4Prefix prefix(const json& j, const char* field) {
  const auto p = Ipv4Prefix::parse(text(j, field), /*allow_host_bits=*/true);
  if (!p) throw std::invalid_argument(std::string("step field '") + field + "' is no prefix");
  return *p;
}

}  // namespace

json route_to_json(const RouteSpec& r) {
  return {{"dst", r.dst.str()}, {"via", r.via.str()}, {"dev", r.dev}, {"src", r.src.str()}};
}

json step_to_json(const Step& step) {
  json s = std::visit(
      Overloaded{
          [](const CreateNamespace& s) {
            return json{{"ns", s.ns}};
          },
          [](const CreateVeth& s) {
            return json{{"ns_a", s.ns_a}, {"if_a", s.if_a}, {"ns_b", s.ns_b}, {"if_b", s.if_b}};
          },
          [](const ExpectInterface& s) {
            return json{{"ns", s.ns},
                        {"dev", s.dev},
                        {"peer", {{"host", s.peer_host}, {"ns", s.peer_ns}, {"dev", s.peer_dev}}}};
          },
          [](const CreateVxlan& s) {
            return json{{"ns", s.ns},
                        {"dev", s.dev},
                        {"vni", s.spec.vni},
                        {"local", s.spec.local.str()},
                        {"remote", s.spec.remote.str()},
                        {"port", s.spec.port},
                        {"underlay_dev", s.spec.underlay_dev},
                        {"peer_host", s.peer_host}};
          },
          [](const SetLinkUp& s) {
            return json{{"ns", s.ns}, {"dev", s.dev}};
          },
          [](const AddAddress& s) {
            return json{{"ns", s.ns}, {"dev", s.dev}, {"address", s.address.str()}};
          },
          [](const SetSysctl& s) {
            return json{{"ns", s.ns}, {"key", s.key}, {"value", s.value}};
          },
          [](const AddIngressHooks& s) {
            json hooks = json::array();
            for (const auto& [dev, d] : s.hooks) {
              hooks.push_back({{"dev", dev}, {"queue", d.queue}, {"loss", d.loss}});
            }
            return json{{"ns", s.ns}, {"hooks", hooks}};
          },
          [](const AddTrafficCounters& s) {
            return json{{"ns", s.ns},
                        {"first_port", s.counters.first_port},
                        {"last_port", s.counters.last_port},
                        {"devs", s.counters.devs}};
          },
          [](const AddIngressNetem& s) {
            json r = netem_to_json(s.netem);
            r["ns"] = s.ns;
            r["dev"] = s.dev;
            return r;
          },
          [](const ShapeEgress& s) {
            json r = shaping_to_json(s.shaping);
            r["ns"] = s.ns;
            r["dev"] = s.dev;
            return r;
          },
          // The routes themselves are the plan's (its "routes", listed under `plan
          // --routes`); undoing the step deletes what the testbed owns in the namespace.
          [](const AddRoutes& s) {
            return json{{"ns", s.ns}, {"count", s.routes.size()}};
          }},
      step);
  s["op"] = step_op(step);
  return s;
}

Step step_from_json(const json& j) {
  if (!j.is_object()) throw std::invalid_argument("a step is not an object");
  const std::string op = text(j, "op");
  if (op == "create_namespace") return CreateNamespace{text(j, "ns")};
  if (op == "create_veth") {
    return CreateVeth{text(j, "ns_a"), text(j, "if_a"), text(j, "ns_b"), text(j, "if_b")};
  }
  if (op == "expect_interface") {
    const json& peer = j.value("peer", json::object());
    return ExpectInterface{text(j, "ns"), text(j, "dev"), text(peer, "host"), text(peer, "ns"),
                           text(peer, "dev")};
  }
  if (op == "create_vxlan") {
    if (!j.contains("vni") || !j["vni"].is_number_unsigned() || !j.contains("port") ||
        !j["port"].is_number_unsigned()) {
      throw std::invalid_argument("step field 'vni' or 'port' is missing or not a number");
    }
    return CreateVxlan{
        text(j, "ns"), text(j, "dev"),
        VxlanSpec{j["vni"].get<uint32_t>(), address(j, "local"), address(j, "remote"),
                  j["port"].get<uint16_t>(), text(j, "underlay_dev")},
        text(j, "peer_host")};
  }
  if (op == "set_link_up") return SetLinkUp{text(j, "ns"), text(j, "dev")};
  if (op == "add_address") return AddAddress{text(j, "ns"), text(j, "dev"), prefix(j, "address")};
  if (op == "set_sysctl") return SetSysctl{text(j, "ns"), text(j, "key"), text(j, "value")};
  if (op == "add_ingress_hooks") {
    AddIngressHooks s{text(j, "ns"), {}};
    for (const auto& h : j.value("hooks", json::array())) {
      s.hooks[text(h, "dev")] =
          IngressDelay{h.at("queue").get<uint16_t>(), h.at("loss").get<double>()};
    }
    return s;
  }
  if (op == "add_ingress_netem") {
    return AddIngressNetem{text(j, "ns"), text(j, "dev"), netem_from_json(j)};
  }
  if (op == "shape_egress") return ShapeEgress{text(j, "ns"), text(j, "dev"), shaping_from_json(j)};
  if (op == "add_routes") return AddRoutes{text(j, "ns"), {}};
  if (op == "add_traffic_counters") {
    AddTrafficCounters s{text(j, "ns"), {}};
    s.counters.first_port = j.at("first_port").get<uint16_t>();
    s.counters.last_port = j.at("last_port").get<uint16_t>();
    for (const auto& d : j.at("devs")) s.counters.devs.push_back(d.get<std::string>());
    return s;
  }
  throw std::invalid_argument("unknown step op '" + op + "'");
}

}  // namespace testbed
