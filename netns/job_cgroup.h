// A job's control group in each node (docs/jobs.md): what lets the kernel tell one job's
// packets from another's when two run on one lab at once. Processes of the job join it
// beside their node's compute group (node_cgroup.h); iptables' cgroup match then marks what
// they send (job_marks.h).
//
// The match reads cgroup v2 paths, so the group is in the unified hierarchy on every host:
// - v2 hosts: under the node's own group when it has one (a process is in one v2 group
//   only, and a child of the node's group keeps the node's limits: they are hierarchical),
//   else beside the node's name at the top;
// - hybrid hosts (v1 controllers and an empty unified hierarchy, as this project's CI
//   machine): the unified hierarchy holds no limits, so the job's group is at its top,
//   while the node's v1 groups hold the limits as before.
// Either way its name starts with the node's namespace name (`tb-...`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "netns/named_netns.h"

namespace testbed {

// The cgroup v2 mount (/sys/fs/cgroup on v2 hosts, /sys/fs/cgroup/unified on hybrid ones),
// nullopt when the host has none: then jobs cannot be told apart by the kernel.
std::optional<std::string> cgroup2_mount();

struct JobGroup {
  std::string dir;   // absolute
  std::string path;  // from the mount's root, as iptables' `--path` takes it ("/tb-x/tbj3")
};
// Pure: where job `slot`'s group in namespace `ns` lives, given whether the node has a v2
// group of its own at `mount`/`ns`.
JobGroup job_group(const std::string& mount, const std::string& ns, int slot,
                   bool node_has_v2_group);
// The same, looking at the host for the node's group.
JobGroup job_group(const std::string& mount, const std::string& ns, int slot);

// Whether a recorded group is a job's (its name ends in tbjSLOT), not a node's: a lab's
// state lists both, the jobs' first (controller/observe/job_accounting.h). Pure. By name:
// a node itself named tbj3 would read as a job's, and its lab as one without compute.
bool is_job_group(const std::string& dir);
// Whether `dirs` hold a node's group: whether the lab's nodes have compute of their own.
bool any_node_group(const std::vector<std::string>& dirs);

// Makes the directory; fails naming it when it exists (not this job's to take over).
void create_job_group(const JobGroup& group);

// From now on every process this process starts in a node (netns_exec.h, the launchers
// that use open_node_identity) joins `slot`'s group there too. nullopt: none again.
void set_current_job(std::optional<int> slot);
// The cgroup.procs of the current job's group in `ns`, open for writing; empty when this
// process runs no job or the group is absent.
std::vector<FileDescriptor> open_current_job_procs(const std::string& ns);

}  // namespace testbed
