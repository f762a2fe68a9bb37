// The CPUs a lab may use: what its processes inherit from the controller that starts them.
// A lab confined by `taskset`, a cpuset or a container's CPU quota (how CI runners and
// Kubernetes pods run it) has fewer CPUs than the machine, and its health must be judged
// against those (controller/health/cpu_load.h), its delay lines spread over those.
//
//  - Affinity: sched_getaffinity(2). A cpuset (cgroup v1 or v2) narrows it too, so this one
//    call covers both.
//  - Quota: the CFS bandwidth limit of this process's group and of every group above it,
//    the tightest (v2 cpu.max "QUOTA PERIOD" or "max"; v1 cpu.cfs_quota_us over
//    cpu.cfs_period_us, -1 for none), in CPUs.
//
// The parsers are pure and unit-tested; read_cpu_allowance() reads this process's.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace testbed {

struct CpuAllowance {
  std::vector<int> cpus;             // the CPUs it may run on, ascending
  std::optional<double> quota_cpus;  // a CFS quota, in CPUs; none: no limit
  std::string quota_group;           // the group whose quota it is (for messages)
  // What the lab can use at most, in CPUs: the fewer of its CPUs and its quota.
  double effective() const;
  // "2 CPUs (0-1)", "1 CPU (0), quota 0.5 CPU (/tb)": for notes and --json.
  std::string describe() const;
};

// v2's cpu.max: "max 100000" is no limit; "50000 100000" is half a CPU.
std::optional<double> parse_cpu_max(const std::string& text);
// v1's quota and period files' contents; a quota of -1 is no limit.
std::optional<double> v1_quota_cpus(const std::string& quota_us, const std::string& period_us);
// The group of `controller` (v1: a name in the line's list; "" for v2's "0::" line) in the
// text of /proc/PID/cgroup; nullopt when absent.
std::optional<std::string> cgroup_of(const std::string& proc_cgroup, const std::string& controller);
// "0-1,3" for {0, 1, 3}.
std::string cpu_ranges(const std::vector<int>& cpus);

// This process's allowance. Never throws: what cannot be read is no limit.
CpuAllowance read_cpu_allowance();

}  // namespace testbed
