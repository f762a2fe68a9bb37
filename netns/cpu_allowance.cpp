#include "netns/cpu_allowance.h"

#include <sched.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "netns/node_cgroup.h"

namespace testbed {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The tightest quota from `group` up to the hierarchy's root at `mount`; `read` gives a
// group directory's quota.
template <typename Read>
void tightest_quota(const std::string& mount, std::string group, Read read, CpuAllowance& a) {
  for (;;) {
    const std::string dir = mount + (group == "/" ? "" : group);
    if (const auto q = read(dir); q && (!a.quota_cpus || *q < *a.quota_cpus)) {
      a.quota_cpus = q;
      a.quota_group = group;
    }
    if (group.empty() || group == "/") return;
    const auto slash = group.rfind('/');
    group = slash == 0 || slash == std::string::npos ? "/" : group.substr(0, slash);
  }
}

}  // namespace

double CpuAllowance::effective() const {
  const double n = static_cast<double>(cpus.size());
  return quota_cpus ? std::min(n, *quota_cpus) : n;
}

std::string CpuAllowance::describe() const {
  std::ostringstream out;
  out << cpus.size() << (cpus.size() == 1 ? " CPU (" : " CPUs (") << cpu_ranges(cpus) << ")";
  if (quota_cpus) out << ", quota " << *quota_cpus << " CPU (" << quota_group << ")";
  return out.str();
}

std::optional<double> parse_cpu_max(const std::string& text) {
  std::istringstream in(text);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
  try {
    const double q = std::stod(quota);
    if (q <= 0) return std::nullopt;
    return q / period;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<double> v1_quota_cpus(const std::string& quota_us, const std::string& period_us) {
  try {
    const double q = std::stod(quota_us), p = std::stod(period_us);
    if (q <= 0 || p <= 0) return std::nullopt;
    return q / p;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::string> cgroup_of(const std::string& proc_cgroup,
                                     const std::string& controller) {
  std::istringstream lines(proc_cgroup);
  for (std::string line; std::getline(lines, line);) {
    // ID:CONTROLLERS:PATH, the path itself may hold ':'.
    const auto a = line.find(':');
    const auto b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string list = line.substr(a + 1, b - a - 1);
    const std::string path = line.substr(b + 1);
    if (controller.empty()) {
      if (line.compare(0, a, "0") == 0 && list.empty()) return path;
      continue;
    }
    std::istringstream names(list);
    for (std::string n; std::getline(names, n, ',');)
      if (n == controller) return path;
  }
  return std::nullopt;
}

std::string cpu_ranges(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

CpuAllowance read_cpu_allowance() {
  CpuAllowance a;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) a.cpus.push_back(c);
  }
  if (a.cpus.empty()) a.cpus.push_back(0);
  try {
    const CgroupLayout layout = host_cgroup_layout();
    const std::string mine = slurp("/proc/self/cgroup");
    if (layout.version == CgroupLayout::Version::kV2) {
      if (const auto g = cgroup_of(mine, ""))
        tightest_quota(
            layout.v2_root, *g,
            [](const std::string& d) { return parse_cpu_max(slurp(d + "/cpu.max")); }, a);
    } else if (const auto g = cgroup_of(mine, "cpu"); g && layout.v1_root.count("cpu")) {
      tightest_quota(
          layout.v1_root.at("cpu"), *g,
          [](const std::string& d) {
            return v1_quota_cpus(slurp(d + "/cpu.cfs_quota_us"), slurp(d + "/cpu.cfs_period_us"));
          },
          a);
    }
  } catch (const std::exception&) {
    // No cgroup hierarchy: no quota to read.
  }
  return a;
}

}  // namespace testbed
