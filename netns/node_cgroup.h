// A node's compute (docs/compute.md): its share of the machine's CPUs, the CPUs it may run
// on and a hard memory limit, as a control group per node that every process the testbed
// starts in the node joins before it runs its program (process_launcher.h).
//
// Both versions of the kernel's interface, since hosts have one or the other: cgroup v2
// (most hosts: one hierarchy, cpu.max, memory.max) and v1 (one hierarchy per controller:
// cpu.cfs_quota_us, memory.limit_in_bytes, as this project's own CI machine mounts them).
// A group is a directory named after the node's network namespace (already `tb-...` and
// unique on the host), at the top of each hierarchy used: on v2 a group holding processes
// cannot hand controllers to children, so nesting under the controller's own group would
// not work there; on v1 the same place keeps one rule.
//
// The layout is data: tests give one over an ordinary directory, where the control files
// are plain files, and read back what was written.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netns/named_netns.h"

namespace testbed {

struct ComputeLimits {
  std::optional<double> cpus;            // CPU bandwidth, in CPUs (0.5: half of one)
  std::vector<int> cpuset;               // the CPUs it may run on; empty: any
  std::optional<uint64_t> memory_bytes;  // hard limit; beyond it the kernel's OOM killer acts
  bool any() const { return cpus || !cpuset.empty() || memory_bytes; }
  bool operator==(const ComputeLimits&) const = default;
};

// The CFS period: the kernel's default, 100 ms. The quota is cpus × the period; a shorter
// period throttles in finer slices but costs more scheduler work, a longer one lets a
// throttled node run for longer bursts. 100 ms matches what Docker and Kubernetes use.
constexpr int64_t kCpuPeriodUs = 100000;
// The smallest share: the kernel refuses a quota under 1 ms.
constexpr double kMinCpus = 0.01;

struct CgroupLayout {
  enum class Version { kV1, kV2 };
  Version version = Version::kV2;
  std::string v2_root;                         // v2: the unified hierarchy's mount
  std::map<std::string, std::string> v1_root;  // v1: controller -> its hierarchy's mount
};

// The host's: v2 when its unified hierarchy offers the cpu and memory controllers, else
// the v1 hierarchies of cpu, cpuacct, memory and cpuset. Throws when neither is there.
CgroupLayout host_cgroup_layout();
std::string version_name(const CgroupLayout& layout);  // "v1" or "v2"

// The directories a node's group is made of (one per v1 hierarchy, one on v2).
std::vector<std::string> node_cgroup_dirs(const CgroupLayout& layout, const std::string& ns,
                                          const ComputeLimits& limits);

// Creates the node's group with its limits. Fails when a directory already exists (not
// the testbed's to take over); on any failure removes what it made, then throws.
void create_node_cgroup(const CgroupLayout& layout, const std::string& ns,
                        const ComputeLimits& limits);
// Changes the CPU share in place (unset: no limit), as a schedule or `node set` does.
void set_node_cpus(const CgroupLayout& layout, const std::string& ns, std::optional<double> cpus);
// Removes a group directory; absent is fine. Throws naming it when it still holds processes.
void remove_cgroup_dir(const std::string& dir);

// The node's groups' cgroup.procs, open for writing, for a launcher (empty: no group).
std::vector<FileDescriptor> open_node_cgroup_procs(const CgroupLayout& layout,
                                                   const std::string& ns);

// What the kernel counted for the node's group; zeros where a controller is absent.
struct NodeCgroupUsage {
  double cpu_s = 0;        // CPU time used by its processes
  double throttled_s = 0;  // time its processes were held back by the quota
  uint64_t periods = 0, throttled_periods = 0;
  uint64_t memory_bytes = 0, memory_peak_bytes = 0;
  uint64_t oom_kills = 0;      // processes the OOM killer ended inside the group
  std::optional<double> cpus;  // the share in force now (unset: none)
};
NodeCgroupUsage read_node_cgroup(const CgroupLayout& layout, const std::string& ns);

}  // namespace testbed
