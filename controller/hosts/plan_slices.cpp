#include "controller/hosts/plan_slices.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace testbed {
namespace {

// The host of every namespace the plan acts in.
std::map<std::string, std::string> hosts_by_namespace(const Plan& plan,
                                                      const HostPlacement& placement) {
  std::map<std::string, std::string> out;
  for (const auto& n : plan.nodes) {
    const auto it = placement.host_of.find(n.name);
    if (it == placement.host_of.end()) {
      throw std::invalid_argument("node " + n.name + " has no host in the placement (" +
                                  placement.source + ")");
    }
    out[n.ns] = it->second;
  }
  return out;
}

size_t link_index_of(const Plan& plan, const CreateVeth& veth) {
  for (const auto& l : plan.links) {
    if (l.if_a == veth.if_a && l.a2b.ns == veth.ns_a) return l.index;
  }
  throw std::invalid_argument("no link for veth " + veth.if_a + "@" + veth.ns_a);
}

Plan empty_slice_of(const Plan& plan) {
  Plan s;
  s.lab = plan.lab;
  s.source_file = plan.source_file;
  s.pool = plan.pool;
  s.metric = plan.metric;
  s.backend = plan.backend;
  s.backend_reason = plan.backend_reason;
  s.release_window_us = plan.release_window_us;
  s.seed = plan.seed;
  s.workload = plan.workload;
  s.has_schedules = plan.has_schedules;
  s.traffic = plan.traffic;  // each host starts the ends of its own nodes (lab_processes.cpp)
  s.notes = plan.notes;
  return s;
}

}  // namespace

std::vector<PlanSlice> slice_plan(const Plan& plan, const HostPlacement& placement) {
  const auto host_of_ns = hosts_by_namespace(plan, placement);
  std::map<std::string, PlanSlice> by_host;
  for (const auto& h : placement.hosts) by_host[h] = PlanSlice{h, empty_slice_of(plan), 0};
  const auto slice = [&](const std::string& node) -> Plan& {
    return by_host.at(placement.host_of.at(node)).plan;
  };

  for (const auto& n : plan.nodes) slice(n.name).nodes.push_back(n);
  for (const auto& l : plan.links) {
    slice(l.a).links.push_back(l);
    if (placement.host_of.at(l.a) != placement.host_of.at(l.b)) slice(l.b).links.push_back(l);
  }
  // Every slice shares the lab's routes; each installs its own nodes' (route_count).
  for (auto& [host, s] : by_host) s.plan.routes = plan.routes;
  for (const auto& d : plan.delay_lines) slice(d.node).delay_lines.push_back(d);

  for (const Step& step : plan.steps) {
    const auto* veth = std::get_if<CreateVeth>(&step);
    if (veth && host_of_ns.at(veth->ns_a) != host_of_ns.at(veth->ns_b)) {
      const std::string& host_a = host_of_ns.at(veth->ns_a);
      const std::string& host_b = host_of_ns.at(veth->ns_b);
      if (!placement.underlay.empty()) {
        // The link's VXLAN id: its uid as meshnet's would be (index + 1; 0 reads as unset).
        const auto vni = static_cast<uint32_t>(link_index_of(plan, *veth) + 1);
        const Underlay& a = placement.underlay.at(host_a);
        const Underlay& b = placement.underlay.at(host_b);
        by_host.at(host_a).plan.steps.push_back(
            CreateVxlan{veth->ns_a, veth->if_a,
                        VxlanSpec{vni, a.address, b.address, placement.vxlan_port, a.dev}, host_b});
        by_host.at(host_b).plan.steps.push_back(
            CreateVxlan{veth->ns_b, veth->if_b,
                        VxlanSpec{vni, b.address, a.address, placement.vxlan_port, b.dev}, host_a});
        ++by_host.at(host_a).vxlan_interfaces;
        ++by_host.at(host_b).vxlan_interfaces;
        continue;
      }
      by_host.at(host_a).plan.steps.push_back(
          ExpectInterface{veth->ns_a, veth->if_a, host_b, veth->ns_b, veth->if_b});
      by_host.at(host_b).plan.steps.push_back(
          ExpectInterface{veth->ns_b, veth->if_b, host_a, veth->ns_a, veth->if_a});
      ++by_host.at(host_a).expected_interfaces;
      ++by_host.at(host_b).expected_interfaces;
      continue;
    }
    // Every other step acts in one namespace, or in two on the same host.
    by_host.at(host_of_ns.at(step_namespaces(step).front())).plan.steps.push_back(step);
  }

  std::vector<PlanSlice> out;
  for (const auto& h : placement.hosts) {
    PlanSlice& s = by_host.at(h);
    s.plan.notes.push_back(
        "slice of host " + h + " (" + placement.source +
        "): " + std::to_string(s.plan.nodes.size()) + " of " + std::to_string(plan.nodes.size()) +
        " nodes, " +
        (placement.underlay.empty()
             ? std::to_string(s.expected_interfaces) + " link ends made outside the testbed"
             : std::to_string(s.vxlan_interfaces) + " link ends as VXLANs to other hosts"));
    out.push_back(std::move(s));
  }
  return out;
}

PlanSlice slice_for_host(const Plan& plan, const HostPlacement& placement,
                         const std::string& host) {
  if (std::find(placement.hosts.begin(), placement.hosts.end(), host) == placement.hosts.end()) {
    std::string known;
    for (const auto& h : placement.hosts) known += (known.empty() ? "" : ", ") + h;
    throw std::invalid_argument("no host '" + host + "' in the placement; its hosts: " + known);
  }
  for (auto& s : slice_plan(plan, placement)) {
    if (s.host == host) return std::move(s);
  }
  return {};  // unreachable: the host is in the placement
}

}  // namespace testbed
