#include "controller/training/remote_hosts.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "controller/hosts/host_placement.h"
#include "controller/topology/comma_list.h"

namespace testbed {
RemoteHosts::RemoteHosts(std::vector<std::string> names, std::vector<bool> remote,
                         std::vector<std::string> host_of)
    : names_(std::move(names)),
      remote_(std::move(remote)),
      host_of_(std::move(host_of)),
      claimed_by_(names_.size()) {
  remote_.resize(names_.size(), false);
  host_of_.resize(names_.size());
}

bool RemoteHosts::any() const {
  return std::find(remote_.begin(), remote_.end(), true) != remote_.end();
}

bool RemoteHosts::hear(const std::string& routing_id, const std::string& payload,
                       Clock::time_point now) {
  if (!is_host_id(routing_id)) return false;
  const std::string host = routing_id.substr(5);
  if (!valid_host_name(host)) return false;
  const auto j = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("event") || !j["event"].is_string()) return false;
  // A node of another host, and of this one by the placement: the placement, not the order
  // in which hosts first beat, decides who speaks for a node.
  const auto remote_node = [&](const nlohmann::json& v) {
    return v.is_number_unsigned() && v.get<size_t>() < names_.size() && remote_[v.get<size_t>()] &&
           host_of_[v.get<size_t>()] == host;
  };
  if (j["event"] == "beat") {
    if (!j.contains("nodes") || !j["nodes"].is_array()) return false;
    std::vector<size_t> nodes;
    for (const auto& v : j["nodes"]) {
      if (!remote_node(v)) return false;
      const size_t n = v.get<size_t>();
      if (!claimed_by_[n].empty() && claimed_by_[n] != host) return false;
      nodes.push_back(n);
    }
    for (size_t n : nodes) claimed_by_[n] = host;
    hosts_[host] = {now, std::move(nodes)};
    return true;
  }
  if (j["event"] == "figures") {
    // Only a host that runs some of the run's nodes speaks for links of the lab.
    if (!hosts_.count(host)) return false;
    try {
      figures_[host] = host_figures_from_json(j);
    } catch (const std::invalid_argument&) {
      return false;
    }
    hosts_[host].last_heard = now;
    return true;
  }
  if (j["event"] == "died") {
    if (!j.contains("node") || !remote_node(j["node"])) return false;
    const size_t n = j["node"].get<size_t>();
    if (claimed_by_[n] != host) return false;  // only the host that runs it speaks for it
    const std::string how = j.contains("how") && j["how"].is_string() ? j["how"] : "";
    throw std::runtime_error("the agent of node " + names_[n] + " on host " + host + " died" +
                             (how.empty() ? "" : " (" + how + ")"));
  }
  return false;
}

std::string RemoteHosts::nodes_of(const Host& h) const {
  std::vector<std::string> names;
  for (size_t n : h.nodes) names.push_back(names_[n]);
  return comma_list(names);
}

void RemoteHosts::check(Clock::time_point now) const {
  for (const auto& [name, h] : hosts_) {
    if (now - h.last_heard >= kHostSilence) {
      throw std::runtime_error(
          "host " + name + " (nodes " + nodes_of(h) + ") has been silent for " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::seconds>(now - h.last_heard).count()) +
          " s: its `testbed agents` ended, or the network between the hosts is down");
    }
  }
}

std::vector<std::string> RemoteHosts::routing_ids() const {
  std::vector<std::string> out;
  for (const auto& [name, h] : hosts_) out.push_back("host/" + name);
  return out;
}

std::vector<std::string> RemoteHosts::unclaimed() const {
  std::vector<std::string> out;
  for (size_t n = 0; n < names_.size(); ++n) {
    if (remote_[n] && claimed_by_[n].empty()) out.push_back(names_[n]);
  }
  return out;
}

}  // namespace testbed
