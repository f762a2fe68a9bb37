#include "controller/observe/node_compute_status.h"

#include <iomanip>
#include <sstream>

#include "controller/lab/plan_table.h"
#include "controller/topology/node_compute.h"
#include "netns/job_cgroup.h"
#include "netns/node_cgroup.h"

namespace testbed {

namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

}  // namespace

std::optional<LabCompute> read_lab_compute(const LabState& s) {
  std::vector<std::string> namespaces;
  for (const auto& n : s.plan.nodes) namespaces.push_back(n.ns);
  return read_lab_compute(s.cgroups, namespaces);
}

std::optional<LabCompute> read_lab_compute(const std::vector<std::string>& cgroups,
                                           const std::vector<std::string>& namespaces) {
  if (!any_node_group(cgroups)) return std::nullopt;
  CgroupLayout layout;
  try {
    layout = host_cgroup_layout();
  } catch (const std::exception&) {
    return std::nullopt;
  }
  LabCompute c{version_name(layout), {}};
  for (const auto& ns : namespaces) c.nodes.push_back(read_node_cgroup(layout, ns));
  return c;
}

nlohmann::json compute_used_to_json(const std::string& cgroup, const NodeCgroupUsage& u) {
  return {{"cgroup", cgroup},
          {"cpus_now", u.cpus ? nlohmann::json(*u.cpus) : nlohmann::json()},
          {"cpu_s", u.cpu_s},
          {"throttled_s", u.throttled_s},
          {"periods", u.periods},
          {"throttled_periods", u.throttled_periods},
          {"memory_bytes", u.memory_bytes},
          {"memory_peak_bytes", u.memory_peak_bytes},
          {"oom_kills", u.oom_kills}};
}

void print_compute(std::ostream& out, const Plan& plan, const LabCompute& c) {
  out << "\ncompute (cgroup " << c.cgroup << ")\n";
  TextTable t({"NODE", "CPUS", "CPUSET", "MEMORY", "CPU USED S", "THROTTLED S", "PEAK MEMORY",
               "OOM KILLS"});
  for (size_t i = 0; i < plan.nodes.size() && i < c.nodes.size(); ++i) {
    const PlannedNode& n = plan.nodes[i];
    const NodeCgroupUsage& u = c.nodes[i];
    std::string cpuset;
    for (const int cpu : n.compute.cpuset)
      cpuset += (cpuset.empty() ? "" : ",") + std::to_string(cpu);
    t.add({n.name, u.cpus ? fixed(*u.cpus, 2) : "all", cpuset.empty() ? "any" : cpuset,
           n.compute.memory_bytes ? format_memory_size(*n.compute.memory_bytes) : "-",
           fixed(u.cpu_s, 2), fixed(u.throttled_s, 2),
           fixed(static_cast<double>(u.memory_peak_bytes) / (1 << 20), 1) + " MiB",
           std::to_string(u.oom_kills)});
  }
  t.print(out);
}

ComputeMeter::ComputeMeter(const LabState& s) {
  if (!any_node_group(s.cgroups)) return;
  try {
    layout_ = host_cgroup_layout();
  } catch (const std::exception&) {
    return;
  }
  for (const auto& n : s.plan.nodes)
    nodes_.push_back({n.name, n.ns, read_node_cgroup(layout_, n.ns)});
}

uint64_t ComputeMeter::oom_kills(const std::string& ns) const {
  return read_node_cgroup(layout_, ns).oom_kills;
}

bool ComputeMeter::memory_limit_killed(const std::string& name) const {
  for (const auto& n : nodes_)
    if (n.name == name) return read_node_cgroup(layout_, n.ns).oom_kills > n.start.oom_kills;
  return false;
}

nlohmann::json ComputeMeter::summary() const {
  if (nodes_.empty()) return nullptr;
  nlohmann::json out = {{"cgroup", version_name(layout_)},
                        {"nodes", nlohmann::json::object()},
                        {"throttled_nodes", nlohmann::json::array()}};
  for (const auto& n : nodes_) {
    const NodeCgroupUsage now = read_node_cgroup(layout_, n.ns);
    const uint64_t periods = now.periods - n.start.periods;
    const double share =
        periods == 0 ? 0.0
                     : static_cast<double>(now.throttled_periods - n.start.throttled_periods) /
                           static_cast<double>(periods);
    out["nodes"][n.name] = {{"cpus", now.cpus ? nlohmann::json(*now.cpus) : nlohmann::json()},
                            {"cpu_s", now.cpu_s - n.start.cpu_s},
                            {"throttled_s", now.throttled_s - n.start.throttled_s},
                            {"throttled_share", share},
                            {"memory_peak_bytes", now.memory_peak_bytes},
                            {"oom_kills", now.oom_kills - n.start.oom_kills}};
    if (share >= kThrottledShare && periods >= kMinPeriods)
      out["throttled_nodes"].push_back(n.name);
  }
  return out;
}

std::vector<std::string> throttled_lines(const nlohmann::json& compute) {
  std::vector<std::string> out;
  if (!compute.is_object()) return out;
  for (const auto& name : compute.value("throttled_nodes", nlohmann::json::array())) {
    const auto& n = compute["nodes"][name.get<std::string>()];
    out.push_back("node " + name.get<std::string>() + ": held back by its share (cpus " +
                  (n["cpus"].is_null() ? std::string("all") : fixed(n["cpus"], 2)) + ") in " +
                  fixed(100 * n["throttled_share"].get<double>(), 0) + "% of the run's periods, " +
                  fixed(n["cpu_s"], 1) + " s of CPU used");
  }
  return out;
}

void add_compute_notes(nlohmann::json& summary) {
  if (!summary.contains("compute") || !summary.contains("health")) return;
  const nlohmann::json& c = summary["compute"];
  nlohmann::json& h = summary["health"];
  h["compute_limited_nodes"] = c.value("throttled_nodes", nlohmann::json::array());
  for (const auto& name : h["compute_limited_nodes"]) {
    const auto& n = c["nodes"][name.get<std::string>()];
    h["notes"].push_back("node " + name.get<std::string>() +
                         " was held back by its CPU share (cpus " +
                         (n["cpus"].is_null() ? std::string("all") : fixed(n["cpus"], 2)) +
                         ") in " + fixed(100 * n["throttled_share"].get<double>(), 0) +
                         "% of its periods: its pace is its compute limit, not the network");
  }
}

}  // namespace testbed
