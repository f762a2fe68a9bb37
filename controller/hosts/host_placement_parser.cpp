// The placement file: `hosts:` mapping each host's name to the list of its nodes; for plain
// hosts, `underlay:` giving each host's address (and interface) for the VXLANs between them.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "agent/transport/curve_keys.h"
#include "controller/hosts/host_placement.h"
#include "controller/topology/port_number.h"
#include "controller/topology/yaml_diagnostics.h"

namespace testbed {
namespace {

// `underlay: {HOST: {address: A, dev: D}}` for every host, and `vxlan_port: P`.
void parse_underlay(const YAML::Node& root, HostPlacement& p, YamlDiagnostics& diag) {
  if (const YAML::Node port = root["vxlan_port"]) {
    std::string text;
    if (diag.scalar(port, "vxlan_port", text)) {
      if (const auto value = parse_port(text)) {
        p.vxlan_port = *value;
      } else {
        diag.error(port, "vxlan_port: a UDP port (1-65535), not '" + text + "'");
      }
    }
  }
  const YAML::Node underlay = root["underlay"];
  if (!underlay) return;
  if (!underlay.IsMap()) {
    diag.error(underlay, "underlay: a map from each host's name to {address, dev}");
    return;
  }
  for (auto it = underlay.begin(); it != underlay.end(); ++it) {
    const std::string host = it->first.Scalar();
    const std::string field = "underlay." + host;
    if (std::find(p.hosts.begin(), p.hosts.end(), host) == p.hosts.end()) {
      diag.error(it->first, field + ": no host '" + host + "' under hosts");
      continue;
    }
    if (!it->second.IsMap()) {
      diag.error(it->second, field + ": {address: IPv4, dev: interface}");
      continue;
    }
    diag.check_keys(it->second, {"address", "dev"}, "in " + field);
    std::string address, dev;
    if (!it->second["address"]) {
      diag.error(it->second, field + ".address: the host's address on the underlay is needed");
      continue;
    }
    if (!diag.scalar(it->second["address"], field + ".address", address)) continue;
    const auto parsed = Ipv4Address::parse(address);
    if (!parsed) {
      diag.error(it->second["address"], field + ".address: '" + address + "' is no IPv4 address");
      continue;
    }
    if (it->second["dev"] && diag.scalar(it->second["dev"], field + ".dev", dev) &&
        (dev.empty() || dev.size() > 15)) {  // IFNAMSIZ - 1
      diag.error(it->second["dev"], field + ".dev: an interface name (1-15 characters)");
      continue;
    }
    p.underlay[host] = Underlay{*parsed, dev};
  }
  std::string without;
  for (const auto& h : p.hosts)
    if (!p.underlay.count(h)) without += (without.empty() ? "" : ", ") + h;
  if (!without.empty() && diag.empty()) {
    diag.error(underlay, "underlay: every host needs one, or none does; none for " + without);
  }
}

// `keys: {HOST: Z85}` for every host, or none.
void parse_keys(const YAML::Node& root, HostPlacement& p, YamlDiagnostics& diag) {
  const YAML::Node keys = root["keys"];
  if (!keys) return;
  if (!keys.IsMap()) {
    diag.error(keys, "keys: a map from each host's name to its CURVE public key (testbed keys)");
    return;
  }
  std::set<std::string> seen;
  for (auto it = keys.begin(); it != keys.end(); ++it) {
    const std::string host = it->first.Scalar();
    const std::string field = "keys." + host;
    if (std::find(p.hosts.begin(), p.hosts.end(), host) == p.hosts.end()) {
      diag.error(it->first, field + ": no host '" + host + "' under hosts");
      continue;
    }
    std::string key;
    if (!diag.scalar(it->second, field, key)) continue;
    if (!valid_curve_key(key)) {
      diag.error(it->second, field + ": a CURVE public key, 40 characters of Z85 (testbed keys)");
      continue;
    }
    if (!seen.insert(key).second) {
      diag.error(it->second, field + ": the same key as another host's; each host has its own");
      continue;
    }
    p.keys[host] = key;
  }
  std::string without;
  for (const auto& h : p.hosts)
    if (!p.keys.count(h)) without += (without.empty() ? "" : ", ") + h;
  if (!without.empty() && diag.empty())
    diag.error(keys, "keys: every host needs one, or none does; none for " + without);
}

}  // namespace

HostPlacement parse_host_placement_text(const std::string& text, const std::string& file,
                                        const Plan& plan) {
  YAML::Node root = load_yaml(text, file);
  YamlDiagnostics diag(file);
  HostPlacement p;
  p.source = "file " + file;
  if (!root.IsMap()) {
    throw ValidationError({{file, 0, 0, "expected a map with the key 'hosts'"}});
  }
  diag.check_keys(root, {"hosts", "underlay", "vxlan_port", "keys"}, "at the top level");
  const YAML::Node hosts = root["hosts"];
  if (!hosts || !hosts.IsMap() || hosts.size() == 0) {
    diag.error(hosts ? hosts : root, "hosts: a map from each host's name to its nodes");
    diag.finish();
  }
  std::set<std::string> known;
  for (const auto& n : plan.nodes) known.insert(n.name);
  for (auto it = hosts.begin(); it != hosts.end(); ++it) {
    const std::string host = it->first.Scalar();
    if (!valid_host_name(host)) {
      diag.error(it->first, "hosts: '" + host +
                                "' is not a host name (lower-case letters, digits, '-' and '.', "
                                "at most 63 characters)");
    }
    p.hosts.push_back(host);
    const YAML::Node nodes = it->second;
    if (!nodes.IsSequence() || nodes.size() == 0) {
      diag.error(nodes ? nodes : it->first, "hosts." + host + ": a non-empty list of nodes");
      continue;
    }
    for (const auto& n : nodes) {
      std::string node;
      if (!diag.scalar(n, "hosts." + host + " entry", node)) continue;
      if (!known.count(node)) {
        diag.error(n, "hosts." + host + ": no node '" + node + "' in " + plan.source_file);
      } else if (const auto prev = p.host_of.find(node); prev != p.host_of.end()) {
        diag.error(n, "hosts." + host + ": node '" + node + "' is already on host " + prev->second);
      } else {
        p.host_of[node] = host;
      }
    }
  }
  parse_underlay(root, p, diag);
  parse_keys(root, p, diag);
  std::string missing;
  for (const auto& n : plan.nodes) {
    if (!p.host_of.count(n.name)) missing += (missing.empty() ? "" : ", ") + n.name;
  }
  // Only on its own: a node on a host whose entry was wrong would be listed here too.
  if (!missing.empty() && diag.empty())
    diag.error(hosts, "hosts: every node needs a host; none for " + missing);
  diag.finish();
  return p;
}

HostPlacement parse_host_placement_file(const std::string& path, const Plan& plan) {
  std::ifstream in(path);
  if (!in) throw ValidationError({{path, 0, 0, "cannot read the file"}});
  std::stringstream text;
  text << in.rdbuf();
  return parse_host_placement_text(text.str(), path, plan);
}

}  // namespace testbed
