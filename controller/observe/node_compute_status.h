// A lab's nodes' compute in `status` (docs/compute.md): each node's limits, as the plan
// gives them and as the kernel holds them now (a schedule or `node set` may have changed
// the share), beside what the kernel counted: CPU time used, time throttled, memory at its
// peak and processes the OOM killer ended.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "controller/lab/lab_state.h"
#include "netns/node_cgroup.h"

namespace testbed {

// What each node's group counted so far, in the plan's order of nodes; std::nullopt when
// the lab made no control groups.
struct LabCompute {
  std::string cgroup;  // "v1" or "v2"
  std::vector<NodeCgroupUsage> nodes;
};
std::optional<LabCompute> read_lab_compute(const LabState& s);
// The same for these nodes' namespaces (a lab's identities, known before its plan is read).
std::optional<LabCompute> read_lab_compute(const std::vector<std::string>& cgroups,
                                           const std::vector<std::string>& namespaces);
// A node's "compute_used" in status --json.
nlohmann::json compute_used_to_json(const std::string& cgroup, const NodeCgroupUsage& u);
// The table of it beside each node's limits (the plan's).
void print_compute(std::ostream& out, const Plan& plan, const LabCompute& c);

// One line per throttled node of a ComputeMeter's summary, for people: "node d: held back
// by its share (cpus 0.25) in 96% of the run's periods, 3.1 s of CPU used".
std::vector<std::string> throttled_lines(const nlohmann::json& compute);

// The health verdict's word on compute (summary["health"], already there): each throttled
// node a note, "its pace is its compute limit, not the network", and the list of them in
// `compute_limited_nodes`. A node's limit is the experiment's choice, so it is a note, not
// a problem: the run is as healthy as the emulated WAN under it.
void add_compute_notes(nlohmann::json& summary);

// What each node's group counted over a run (a launch, a train): made at its start, read
// at its end. Empty when the lab has no groups.
class ComputeMeter {
 public:
  explicit ComputeMeter(const LabState& s);
  bool active() const { return !nodes_.empty(); }
  // {"cgroup", "nodes": {NAME: {cpus, cpu_s, throttled_s, throttled_share, memory_peak_bytes,
  // oom_kills}}, "throttled_nodes": [...]}: a node is throttled when its quota held it back
  // in at least kThrottledShare of its CFS periods of the run.
  nlohmann::json summary() const;
  // The OOM kills of the group of the node in namespace `ns` so far.
  uint64_t oom_kills(const std::string& ns) const;
  // Whether the kernel's OOM killer ended a process of node `name` since the meter began.
  bool memory_limit_killed(const std::string& name) const;

  // A tenth of the periods: an unlimited node, or one whose share exceeds what it asks,
  // stays near 0; a CPU-bound node under its share is held back in nearly every period.
  static constexpr double kThrottledShare = 0.1;
  // And over at least ten periods (a second of the node's activity): a run of a few tenths
  // of a second says nothing of its share.
  static constexpr uint64_t kMinPeriods = 10;

 private:
  struct Node {
    std::string name, ns;
    NodeCgroupUsage start;
  };
  CgroupLayout layout_;
  std::vector<Node> nodes_;
};

}  // namespace testbed
