#include "controller/hosts/k8s_manifests.h"

#include "controller/hosts/k8s_pods.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <stdexcept>

namespace testbed {
namespace {

// meshnet's Topology resource (networkop.co.uk/v1beta1, kept today in openconfig/kne).
constexpr const char* kMeshnetApi = "networkop.co.uk/v1beta1";
// Kubernetes object names are DNS labels: at most 63 characters (RFC 1123).
constexpr size_t kMaxLabel = 63;

// meshnet derives a link's VXLAN id from its uid; uid 0 reads as "unset" in Go's zero
// values, so uids start at 1: the plan's link index plus one.
int64_t link_uid(const PlannedLink& l) {
  return static_cast<int64_t>(l.index) + 1;
}

Ipv4Prefix end_address(const PlannedLink& l, bool a_end) {
  // As the planner assigns them: .1 to end a, .2 to end b of the link's /30.
  return Ipv4Prefix{Ipv4Address{l.subnet.address.value + (a_end ? 1u : 2u)}, 30};
}

// Whether a plain scalar `s` would be read back as a boolean, null or number (YAML 1.1,
// which Kubernetes' parser follows) instead of as text.
bool reads_as_other_than_text(const std::string& s) {
  static const std::regex kOther(
      "|~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|"
      "OFF|y|Y|n|N|[-+]?(\\.[0-9]+|[0-9][0-9_]*(\\.[0-9_]*)?)([eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|"
      "[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");
  return std::regex_match(s, kOther);
}

// JSON to YAML through yaml-cpp's emitter, keys in the order the JSON holds them.
void emit(YAML::Emitter& out, const nlohmann::ordered_json& j) {
  if (j.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [k, v] : j.items()) {
      out << YAML::Key << k << YAML::Value;
      emit(out, v);
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& v : j) emit(out, v);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s.find('\n') != std::string::npos) {
      out << YAML::Literal << s;  // a file (the profile): kept as it reads
    } else if (reads_as_other_than_text(s)) {
      out << YAML::DoubleQuoted << s;  // "true", "9464": Kubernetes wants text there
    } else {
      out << s;
    }
  } else if (j.is_boolean()) {
    out << j.get<bool>();
  } else if (j.is_number_integer()) {
    out << j.get<int64_t>();
  } else if (j.is_number()) {
    out << j.get<double>();
  } else {
    out << YAML::Null;
  }
}

nlohmann::ordered_json topology_resource(const Plan& plan, const PlannedNode& node,
                                         const K8sExportOptions& options) {
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const auto& l : plan.links) {
    if (l.a != node.name && l.b != node.name) continue;
    const bool a_end = l.a == node.name;
    links.push_back({{"uid", link_uid(l)},
                     {"peer_pod", k8s_pod_name(plan, a_end ? l.b : l.a)},
                     {"local_intf", a_end ? l.if_a : l.if_b},
                     {"local_ip", end_address(l, a_end).str()},
                     {"peer_intf", a_end ? l.if_b : l.if_a},
                     {"peer_ip", end_address(l, !a_end).str()}});
  }
  return {{"apiVersion", kMeshnetApi},
          {"kind", "Topology"},
          {"metadata",
           {{"name", k8s_pod_name(plan, node.name)},
            {"namespace", options.k8s_namespace},
            {"labels", {{"testbed/lab", plan.lab}, {"testbed/node", node.name}}}}},
          {"spec", {{"links", links}}}};
}

bool is_dns_label(const std::string& s) {
  return !s.empty() && s.size() <= kMaxLabel && s.front() != '-' && s.back() != '-' &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return std::islower(c) || std::isdigit(c) || c == '-';
         });
}

}  // namespace

std::string k8s_spelling(const std::string& name) {
  std::string out;
  for (char c : name) {
    out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string k8s_pod_name(const Plan& plan, const std::string& node) {
  const auto it = std::find_if(plan.nodes.begin(), plan.nodes.end(),
                               [&](const PlannedNode& n) { return n.name == node; });
  if (it == plan.nodes.end()) throw std::invalid_argument("no node '" + node + "' in the plan");
  const std::string name = k8s_spelling(it->ns);
  if (!is_dns_label(name)) {
    throw std::invalid_argument("node " + node + ": '" + name +
                                "' is not a Kubernetes name (lower-case letters, digits and "
                                "'-', at most 63 characters); rename the node or the lab");
  }
  return name;
}

std::string to_yaml_documents(const nlohmann::ordered_json& docs) {
  YAML::Emitter out;
  for (const auto& d : docs) {
    out << YAML::BeginDoc;
    emit(out, d);
  }
  return std::string(out.c_str()) + "\n";
}

nlohmann::ordered_json meshnet_topologies(const Plan& plan, const K8sExportOptions& options) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& n : plan.nodes) out.push_back(topology_resource(plan, n, options));
  return out;
}

std::vector<Manifest> k8s_manifests(const Plan& plan, const K8sExportOptions& options) {
  if (!is_dns_label(options.k8s_namespace)) {
    throw std::invalid_argument("--namespace: '" + options.k8s_namespace +
                                "' is not a Kubernetes namespace name (lower-case letters, "
                                "digits and '-', at most 63 characters)");
  }
  // Two nodes whose names differ only in case or '_' against '-' would share a pod name.
  std::set<std::string> names;
  for (const auto& n : plan.nodes) {
    if (!names.insert(k8s_pod_name(plan, n.name)).second) {
      throw std::invalid_argument("node " + n.name + ": its Kubernetes name " +
                                  k8s_pod_name(plan, n.name) + " is another node's too");
    }
  }
  if (options.metrics_port < 1 || options.metrics_port > 65535) {
    throw std::invalid_argument("--metrics-port: " + std::to_string(options.metrics_port) +
                                " is not a port");
  }
  if (!options.pod_keys.empty()) {
    for (const auto& n : plan.nodes) {
      if (!options.pod_keys.count(k8s_pod_name(plan, n.name)))
        throw std::invalid_argument("no key pair for pod " + k8s_pod_name(plan, n.name));
    }
  }
  std::vector<Manifest> out = {
      {"meshnet-topology.yaml", to_yaml_documents(meshnet_topologies(plan, options))},
      {"testbed-pods.yaml", to_yaml_documents(k8s_pods(plan, options))},
      {"placement.yaml", pod_placement_yaml(plan, options)}};
  if (!options.pod_keys.empty())
    out.push_back({"testbed-keys.yaml", to_yaml_documents(k8s_key_secrets(plan, options))});
  return out;
}

}  // namespace testbed
