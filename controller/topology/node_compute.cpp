#include "controller/topology/node_compute.h"

#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

namespace testbed {
namespace {

// The largest CPU number a pinning may name: far beyond any host, small enough that a
// typo (a year, a port) is caught here rather than by the kernel.
constexpr int kMaxCpuNumber = 4095;

}  // namespace

std::optional<uint64_t> parse_memory_size(const std::string& text, std::string& why) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0) {
    why = "'" + text + "' is not a size; write bytes or a binary unit (512MiB, 2GiB)";
    return std::nullopt;
  }
  std::string unit;
  for (size_t j = i; j < text.size(); ++j)
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[j])));
  static const std::vector<std::pair<std::string, int>> kShifts = {
      {"", 0}, {"b", 0}, {"k", 10}, {"kib", 10}, {"m", 20}, {"mib", 20}, {"g", 30}, {"gib", 30}};
  for (const auto& [name, shift] : kShifts) {
    if (unit != name) continue;
    const uint64_t number = std::stoull(text.substr(0, std::min<size_t>(i, 15)));
    if (i > 15 || number > (UINT64_MAX >> 30)) {
      why = "'" + text + "' is larger than any machine's memory";
      return std::nullopt;
    }
    return number << shift;
  }
  why = "'" + text + "' has an unknown unit; write bytes or KiB, MiB, GiB (512MiB, 2GiB)";
  return std::nullopt;
}

std::string format_memory_size(uint64_t bytes) {
  if (bytes != 0 && bytes % (1ULL << 30) == 0) return std::to_string(bytes >> 30) + "GiB";
  if (bytes != 0 && bytes % (1ULL << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
  return std::to_string(bytes) + "B";
}

ComputeLimits parse_node_compute(const YAML::Node& node, const std::string& name,
                                 const YamlErrorSink& error) {
  ComputeLimits out;
  const std::string where = "node '" + name + "': ";
  if (const YAML::Node c = node["cpus"]) {
    double v = 0;
    bool ok = c.IsScalar();
    if (ok) {
      std::istringstream in(c.Scalar());
      ok = static_cast<bool>(in >> v) && in.eof() && std::isfinite(v);
    }
    if (!ok) {
      error(c, where + "cpus: '" + (c.IsScalar() ? c.Scalar() : "") +
                   "' is not a number of CPUs (0.5 is half of one)");
    } else if (v < kMinCpus || v > kMaxCpus) {
      std::ostringstream range;
      range << kMinCpus << " to " << kMaxCpus;
      error(c, where + "cpus: " + c.Scalar() + " is outside " + range.str() +
                   " (the kernel's smallest quota is 1% of a CPU)");
    } else {
      out.cpus = v;
    }
  }
  if (const YAML::Node s = node["cpuset"]) {
    if (!s.IsSequence() || s.size() == 0) {
      error(s, where + "cpuset: expected a list of CPU numbers, e.g. [0, 1]");
    } else {
      std::set<int> seen;
      for (const auto& item : s) {
        int cpu = -1;
        try {
          cpu = item.IsScalar() ? std::stoi(item.Scalar()) : -1;
          if (item.Scalar().find_first_not_of("0123456789") != std::string::npos) cpu = -1;
        } catch (const std::exception&) {
          cpu = -1;
        }
        if (cpu < 0 || cpu > kMaxCpuNumber) {
          error(item, where + "cpuset: '" + (item.IsScalar() ? item.Scalar() : "") +
                          "' is not a CPU number");
        } else if (!seen.insert(cpu).second) {
          error(item, where + "cpuset: CPU " + std::to_string(cpu) + " is listed twice");
        } else {
          out.cpuset.push_back(cpu);
        }
      }
    }
  }
  if (const YAML::Node m = node["memory"]) {
    std::string why;
    const auto bytes = m.IsScalar() ? parse_memory_size(m.Scalar(), why) : std::nullopt;
    if (!m.IsScalar()) why = "expected a size, e.g. 2GiB";
    if (!bytes) {
      error(m, where + "memory: " + why);
    } else if (*bytes < kMinNodeMemory) {
      error(m, where + "memory: " + m.Scalar() + " is below " + format_memory_size(kMinNodeMemory) +
                   ", too little for any process to start");
    } else {
      out.memory_bytes = bytes;
    }
  }
  return out;
}

}  // namespace testbed
