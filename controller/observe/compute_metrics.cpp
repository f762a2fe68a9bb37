#include "controller/observe/compute_metrics.h"

#include <functional>

namespace testbed {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

std::vector<MetricFamily> ComputeCollectable::Collect() const {
  struct Series {
    MetricFamily family;
    std::function<double(const NodeCgroupUsage&)> value;
  };
  std::vector<Series> series = {
      {{"testbed_node_cpu_seconds_total",
        "CPU time used by a node's processes.",
        MetricType::Counter,
        {}},
       [](const NodeCgroupUsage& u) { return u.cpu_s; }},
      {{"testbed_node_cpu_throttled_seconds_total",
        "Time a node's processes were held back by its CPU share.",
        MetricType::Counter,
        {}},
       [](const NodeCgroupUsage& u) { return u.throttled_s; }},
      {{"testbed_node_cpu_share",
        "A node's CPU share now, in CPUs; 0 when it has none.",
        MetricType::Gauge,
        {}},
       [](const NodeCgroupUsage& u) { return u.cpus.value_or(0.0); }},
      {{"testbed_node_memory_bytes",
        "Memory charged to a node's processes now.",
        MetricType::Gauge,
        {}},
       [](const NodeCgroupUsage& u) { return static_cast<double>(u.memory_bytes); }},
      {{"testbed_node_oom_kills_total",
        "Processes of a node the kernel's OOM killer ended at its memory limit.",
        MetricType::Counter,
        {}},
       [](const NodeCgroupUsage& u) { return static_cast<double>(u.oom_kills); }},
  };
  for (const auto& [node, ns] : nodes_) {
    const NodeCgroupUsage u = read_node_cgroup(layout_, ns);
    for (auto& s : series) {
      ClientMetric m;
      m.label = {{"lab", lab_}, {"node", node}};
      if (s.family.type == MetricType::Counter) {
        m.counter.value = s.value(u);
      } else {
        m.gauge.value = s.value(u);
      }
      s.family.metric.push_back(std::move(m));
    }
  }
  std::vector<MetricFamily> out;
  for (auto& s : series) out.push_back(std::move(s.family));
  return out;
}

}  // namespace testbed
