#include "netns/node_cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "netns/kernel_error.h"

namespace testbed {
namespace {

// The v1 controllers a node's group joins: cpu for the quota and its throttling counts,
// cpuacct for the CPU time used, memory for the limit, cpuset only when pinned.
const std::vector<std::string> kV1Always = {"cpu", "cpuacct", "memory"};

[[noreturn]] void fail(const std::string& what) {
  throw KernelError(errno, what);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// O_CREAT so that a layout over an ordinary directory (tests) takes the write; on a cgroup
// file system every file written here exists already.
void write_control(const std::string& path, const std::string& value) {
  FileDescriptor fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (fd.get() < 0) fail("open(" + path + ")");
  if (write(fd.get(), value.data(), value.size()) != static_cast<ssize_t>(value.size()))
    fail("write(" + path + ", " + value + ")");
}

bool exists(const std::string& path) {
  return access(path.c_str(), F_OK) == 0;
}

// "key value" lines (cpu.stat, memory.events) -> the value of `key`, or 0.
uint64_t stat_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string k;
  uint64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

uint64_t number(const std::string& path) {
  try {
    return std::stoull(read_text(path));
  } catch (const std::exception&) {
    return 0;  // absent, or "max"
  }
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

int64_t quota_us(double cpus) {
  return std::llround(cpus * static_cast<double>(kCpuPeriodUs));
}

std::string v1_dir(const CgroupLayout& layout, const std::string& controller,
                   const std::string& ns) {
  const auto it = layout.v1_root.find(controller);
  if (it == layout.v1_root.end())
    throw KernelError("cgroup v1: no hierarchy mounts the " + controller + " controller");
  return it->second + "/" + ns;
}

void write_limits_v1(const CgroupLayout& layout, const std::string& ns, const ComputeLimits& l) {
  const std::string cpu = v1_dir(layout, "cpu", ns);
  write_control(cpu + "/cpu.cfs_period_us", std::to_string(kCpuPeriodUs));
  write_control(cpu + "/cpu.cfs_quota_us", l.cpus ? std::to_string(quota_us(*l.cpus)) : "-1");
  if (!l.cpuset.empty()) {
    // A v1 cpuset group starts with no CPUs and no memory nodes: it takes no process until
    // both are set. The memory nodes are its parent's.
    const std::string dir = v1_dir(layout, "cpuset", ns);
    const std::string parent = layout.v1_root.at("cpuset");
    write_control(dir + "/cpuset.mems", read_text(parent + "/cpuset.mems"));
    write_control(dir + "/cpuset.cpus", cpu_list(l.cpuset));
  }
  if (l.memory_bytes) {
    const std::string mem = v1_dir(layout, "memory", ns);
    write_control(mem + "/memory.limit_in_bytes", std::to_string(*l.memory_bytes));
    // Memory and swap together at the same figure: without it a node over its limit pages
    // out to swap instead of being stopped, and "hard limit" would mean "slow".
    if (exists(mem + "/memory.memsw.limit_in_bytes"))
      write_control(mem + "/memory.memsw.limit_in_bytes", std::to_string(*l.memory_bytes));
  }
}

void write_limits_v2(const CgroupLayout& layout, const std::string& ns, const ComputeLimits& l) {
  const std::string dir = layout.v2_root + "/" + ns;
  write_control(dir + "/cpu.max", (l.cpus ? std::to_string(quota_us(*l.cpus)) : "max") + " " +
                                      std::to_string(kCpuPeriodUs));
  if (!l.cpuset.empty()) write_control(dir + "/cpuset.cpus", cpu_list(l.cpuset));
  if (l.memory_bytes) {
    write_control(dir + "/memory.max", std::to_string(*l.memory_bytes));
    if (exists(dir + "/memory.swap.max")) write_control(dir + "/memory.swap.max", "0");
  }
}

// On v2 the top group hands its children only the controllers in its subtree_control;
// systemd enables cpu and memory there, a bare host may not. cpuset only when pinned.
void enable_v2_controllers(const CgroupLayout& layout, bool cpuset) {
  const std::string control = layout.v2_root + "/cgroup.subtree_control";
  const std::string enabled = read_text(control);
  std::set<std::string> have;
  std::istringstream in(enabled);
  for (std::string c; in >> c;) have.insert(c);
  std::vector<std::string> want = {"cpu", "memory"};
  if (cpuset) want.push_back("cpuset");
  for (const auto& c : want)
    if (!have.count(c)) write_control(control, "+" + c);
}

}  // namespace

CgroupLayout host_cgroup_layout() {
  std::ifstream in("/proc/self/mountinfo");
  CgroupLayout layout;
  std::string v2;
  for (std::string line; std::getline(in, line);) {
    // mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPEROPTIONS
    std::istringstream f(line);
    std::string id, parent, dev, root, mount, options, word;
    f >> id >> parent >> dev >> root >> mount >> options;
    while (f >> word && word != "-") {
    }
    std::string fstype, source, super;
    f >> fstype >> source >> super;
    if (fstype == "cgroup2" && v2.empty()) {
      v2 = mount;
    } else if (fstype == "cgroup") {
      std::istringstream opts(super);
      for (std::string o; std::getline(opts, o, ',');) {
        if (o == "cpu" || o == "cpuacct" || o == "memory" || o == "cpuset")
          layout.v1_root.emplace(o, mount);
      }
    }
  }
  const auto has = [&](const std::string& c) { return layout.v1_root.count(c) > 0; };
  // v1 where it has both of the controllers that matter (a "hybrid" host mounts an empty
  // unified hierarchy beside them, as this project's CI machine does); else v2.
  if (has("cpu") && has("memory") && has("cpuacct")) {
    layout.version = CgroupLayout::Version::kV1;
    return layout;
  }
  if (!v2.empty()) {
    const std::string controllers = read_text(v2 + "/cgroup.controllers");
    if (controllers.find("cpu") != std::string::npos &&
        controllers.find("memory") != std::string::npos) {
      layout.version = CgroupLayout::Version::kV2;
      layout.v1_root.clear();
      layout.v2_root = v2;
      return layout;
    }
  }
  throw KernelError(
      "no cgroup hierarchy with the cpu and memory controllers is mounted (cgroup v2 at "
      "/sys/fs/cgroup, or v1's cpu, cpuacct and memory): a node's compute cannot be limited");
}

std::string version_name(const CgroupLayout& layout) {
  return layout.version == CgroupLayout::Version::kV1 ? "v1" : "v2";
}

std::vector<std::string> node_cgroup_dirs(const CgroupLayout& layout, const std::string& ns,
                                          const ComputeLimits& limits) {
  if (layout.version == CgroupLayout::Version::kV2) return {layout.v2_root + "/" + ns};
  std::vector<std::string> controllers = kV1Always;
  if (!limits.cpuset.empty()) controllers.push_back("cpuset");
  std::vector<std::string> dirs;
  for (const auto& c : controllers) {
    const std::string dir = v1_dir(layout, c, ns);
    // Co-mounted controllers ("cpu,cpuacct") share one directory.
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  }
  return dirs;
}

void create_node_cgroup(const CgroupLayout& layout, const std::string& ns,
                        const ComputeLimits& limits) {
  std::vector<std::string> made;
  try {
    if (layout.version == CgroupLayout::Version::kV2)
      enable_v2_controllers(layout, !limits.cpuset.empty());
    for (const auto& dir : node_cgroup_dirs(layout, ns, limits)) {
      // 0755 as the kernel's own groups: readable by anyone (usage), writable by root only.
      if (mkdir(dir.c_str(), 0755) != 0) fail("mkdir(" + dir + ")");
      made.push_back(dir);
    }
    if (layout.version == CgroupLayout::Version::kV1) {
      write_limits_v1(layout, ns, limits);
    } else {
      write_limits_v2(layout, ns, limits);
    }
  } catch (...) {
    for (auto it = made.rbegin(); it != made.rend(); ++it) rmdir(it->c_str());
    throw;
  }
}

void set_node_cpus(const CgroupLayout& layout, const std::string& ns, std::optional<double> cpus) {
  if (layout.version == CgroupLayout::Version::kV1) {
    write_control(v1_dir(layout, "cpu", ns) + "/cpu.cfs_quota_us",
                  cpus ? std::to_string(quota_us(*cpus)) : "-1");
  } else {
    write_control(
        layout.v2_root + "/" + ns + "/cpu.max",
        (cpus ? std::to_string(quota_us(*cpus)) : "max") + " " + std::to_string(kCpuPeriodUs));
  }
}

void remove_cgroup_dir(const std::string& dir) {
  if (rmdir(dir.c_str()) == 0 || errno == ENOENT) return;
  if (errno == EBUSY) {
    const int err = errno;
    throw KernelError(err, "rmdir(" + dir + "): processes are still in the group");
  }
  // A test's layout over an ordinary directory holds its control files as plain files.
  if (errno == ENOTEMPTY) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
      if (entry.is_regular_file()) std::filesystem::remove(entry.path(), ec);
    if (rmdir(dir.c_str()) == 0) return;
  }
  fail("rmdir(" + dir + ")");
}

std::vector<FileDescriptor> open_node_cgroup_procs(const CgroupLayout& layout,
                                                   const std::string& ns) {
  std::vector<std::string> dirs;
  if (layout.version == CgroupLayout::Version::kV2) {
    dirs.push_back(layout.v2_root + "/" + ns);
  } else {
    for (const auto& [controller, root] : layout.v1_root) {
      const std::string dir = root + "/" + ns;
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
  }
  std::vector<FileDescriptor> out;
  for (const auto& dir : dirs) {
    if (!exists(dir)) continue;
    FileDescriptor fd(open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
    if (fd.get() < 0) fail("open(" + dir + "/cgroup.procs)");
    out.push_back(std::move(fd));
  }
  return out;
}

NodeCgroupUsage read_node_cgroup(const CgroupLayout& layout, const std::string& ns) {
  NodeCgroupUsage u;
  if (layout.version == CgroupLayout::Version::kV2) {
    const std::string dir = layout.v2_root + "/" + ns;
    const std::string stat = read_text(dir + "/cpu.stat");
    u.cpu_s = static_cast<double>(stat_field(stat, "usage_usec")) / 1e6;
    u.throttled_s = static_cast<double>(stat_field(stat, "throttled_usec")) / 1e6;
    u.periods = stat_field(stat, "nr_periods");
    u.throttled_periods = stat_field(stat, "nr_throttled");
    u.memory_bytes = number(dir + "/memory.current");
    u.memory_peak_bytes = number(dir + "/memory.peak");
    u.oom_kills = stat_field(read_text(dir + "/memory.events"), "oom_kill");
    std::istringstream max(read_text(dir + "/cpu.max"));
    std::string quota;
    int64_t period = 0;
    if (max >> quota >> period && quota != "max" && period > 0)
      u.cpus = std::stod(quota) / static_cast<double>(period);
    return u;
  }
  const auto dir = [&](const std::string& c) {
    const auto it = layout.v1_root.find(c);
    return it == layout.v1_root.end() ? std::string("/nonexistent") : it->second + "/" + ns;
  };
  u.cpu_s = static_cast<double>(number(dir("cpuacct") + "/cpuacct.usage")) / 1e9;
  const std::string stat = read_text(dir("cpu") + "/cpu.stat");
  u.throttled_s = static_cast<double>(stat_field(stat, "throttled_time")) / 1e9;
  u.periods = stat_field(stat, "nr_periods");
  u.throttled_periods = stat_field(stat, "nr_throttled");
  u.memory_bytes = number(dir("memory") + "/memory.usage_in_bytes");
  u.memory_peak_bytes = number(dir("memory") + "/memory.max_usage_in_bytes");
  u.oom_kills = stat_field(read_text(dir("memory") + "/memory.oom_control"), "oom_kill");
  const std::string quota = read_text(dir("cpu") + "/cpu.cfs_quota_us");
  const uint64_t period = number(dir("cpu") + "/cpu.cfs_period_us");
  try {
    const int64_t q = std::stoll(quota);
    if (q > 0 && period > 0) u.cpus = static_cast<double>(q) / static_cast<double>(period);
  } catch (const std::exception&) {
  }
  return u;
}

}  // namespace testbed
