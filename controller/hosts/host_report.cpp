#include "controller/hosts/host_report.h"

#include <algorithm>
#include <cctype>

#include "controller/lab/plan_table.h"
#include "controller/topology/units.h"

namespace testbed {

HostPlacement resolve_host_placement(const std::string& spec, const Plan& plan) {
  const bool count =
      !spec.empty() && spec.size() <= 6 &&  // a count, not a file named 7.yaml
      std::all_of(spec.begin(), spec.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  if (count) return compute_host_placement(plan, std::stoul(spec));
  return parse_host_placement_file(spec, plan);
}

void print_host_placement(const Plan& plan, const HostPlacement& placement,
                          const std::vector<PlanSlice>& slices, std::ostream& out) {
  out << "lab " << plan.lab << " over " << placement.hosts.size() << " hosts (" << placement.source
      << ")\n";
  TextTable t({"host", "nodes", "shaped", "delayed", "links out", "rate out", "steps",
               "expected ifs", "vxlans"});
  const auto loads = host_loads(plan, placement);
  for (size_t i = 0; i < loads.size(); ++i) {
    const HostLoad& l = loads[i];
    t.add({l.host, std::to_string(l.nodes), format_rate(Rate{l.shaped_bits_per_s}),
           format_rate(Rate{l.delayed_bits_per_s}), std::to_string(l.links_to_other_hosts),
           format_rate(Rate{l.cross_bits_per_s}), std::to_string(slices[i].plan.steps.size()),
           std::to_string(slices[i].expected_interfaces),
           std::to_string(slices[i].vxlan_interfaces)});
  }
  t.print(out);
  for (const auto& h : placement.hosts) {
    out << "  " << h << ":";
    for (const auto& n : placement.nodes_on(h)) out << " " << n;
    out << "\n";
  }
}

nlohmann::json slices_to_json(const Plan& plan, const HostPlacement& placement,
                              const std::vector<PlanSlice>& slices) {
  nlohmann::json j = {{"lab", plan.lab}, {"placement", host_placement_to_json(plan, placement)}};
  j["slices"] = nlohmann::json::array();
  for (const auto& s : slices) {
    j["slices"].push_back({{"host", s.host},
                           {"expected_interfaces", s.expected_interfaces},
                           {"vxlan_interfaces", s.vxlan_interfaces},
                           {"plan", plan_to_json(s.plan)}});
  }
  return j;
}

}  // namespace testbed
