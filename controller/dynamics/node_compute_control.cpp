#include "controller/dynamics/node_compute_control.h"

#include <cmath>
#include <sstream>

#include "controller/dynamics/timeline_log.h"
#include "controller/topology/units.h"
#include "netns/job_cgroup.h"
#include "netns/node_cgroup.h"

namespace testbed {

std::optional<std::optional<double>> parse_cpus_setting(const std::string& text) {
  if (text == "all") return std::optional<double>{};
  std::istringstream in(text);
  double v = 0;
  if (!(in >> v) || !in.eof() || !std::isfinite(v) || v < kMinCpus) return std::nullopt;
  return std::optional<double>{v};
}

std::string cpus_state(std::optional<double> cpus) {
  return "cpus=" + (cpus ? format_factor(*cpus) : std::string("all"));
}

void set_lab_node_cpus(const LabState& state, const std::string& lab_dir, const std::string& node,
                       std::optional<double> cpus, std::optional<double> scheduled_s) {
  if (!any_node_group(state.cgroups))
    throw NoComputeGroups("lab " + state.lab +
                          " has no compute groups: give a node `cpus` (or `memory`) in the "
                          "profile, and `up` makes one for every node");
  std::string ns;
  for (const auto& n : state.plan.nodes)
    if (n.name == node) ns = n.ns;
  if (ns.empty()) throw std::runtime_error("lab " + state.lab + " has no node '" + node + "'");
  const double due = scheduled_s ? *scheduled_s : lab_time_s(lab_dir);
  std::string error;
  try {
    set_node_cpus(host_cgroup_layout(), ns, cpus);
  } catch (const std::exception& e) {
    error = e.what();
  }
  append_timeline_row(lab_dir, node_row(due, lab_time_s(lab_dir), node, cpus_state(cpus), error));
  if (!error.empty()) throw std::runtime_error("node " + node + ": " + error);
}

}  // namespace testbed
