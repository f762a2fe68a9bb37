#include "controller/hosts/placement_keys.h"

#include <yaml-cpp/yaml.h>

#include "controller/hosts/host_placement.h"
#include "controller/topology/yaml_diagnostics.h"

namespace testbed {

std::vector<std::string> placement_host_names(const std::string& text, const std::string& file) {
  YAML::Node root = load_yaml(text, file);
  YamlDiagnostics diag(file);
  if (!root.IsMap() || !root["hosts"] || !root["hosts"].IsMap() || root["hosts"].size() == 0)
    throw ValidationError({{file, 0, 0, "hosts: a map from each host's name to its nodes"}});
  if (root["keys"]) {
    diag.error(root["keys"],
               "keys: this placement has keys already; make new ones from it without them");
  }
  std::vector<std::string> hosts;
  for (auto it = root["hosts"].begin(); it != root["hosts"].end(); ++it) {
    const std::string host = it->first.Scalar();
    if (!valid_host_name(host)) diag.error(it->first, "hosts: '" + host + "' is not a host name");
    hosts.push_back(host);
  }
  diag.finish();
  return hosts;
}

std::string placement_with_keys(const std::string& text,
                                const std::map<std::string, std::string>& key_of_host,
                                const std::vector<std::string>& hosts) {
  std::string out = text;
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += "# CURVE public keys (testbed keys): each host's secret half is in its HOST.key only\n";
  out += "keys:\n";
  for (const auto& h : hosts) out += "  " + h + ": \"" + key_of_host.at(h) + "\"\n";
  return out;
}

}  // namespace testbed
