#include "controller/health/cpu_load.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace testbed {

std::optional<CpuTimes> parse_proc_stat(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string name;
    in >> name;
    if (name != "cpu") continue;
    // user nice system idle iowait irq softirq steal (guest and guest_nice follow, and are
    // already counted in user and nice)
    uint64_t v[8] = {};
    int n = 0;
    while (n < 8 && in >> v[n]) ++n;
    if (n < 4) return std::nullopt;
    CpuTimes t;
    for (int i = 0; i < n; ++i) t.total += v[i];
    t.busy = t.total - v[3] - (n > 4 ? v[4] : 0);
    return t;
  }
  return std::nullopt;
}

std::optional<CpuTimes> read_proc_stat() {
  std::ifstream in("/proc/stat");
  std::stringstream text;
  text << in.rdbuf();
  return parse_proc_stat(text.str());
}

void CpuSaturation::add(const CpuTimes& start, const CpuTimes& end) {
  if (end.total <= start.total || end.busy < start.busy) return;  // no tick passed
  busy_.push_back(static_cast<double>(end.busy - start.busy) /
                  static_cast<double>(end.total - start.total));
}

double CpuSaturation::saturated_share() const {
  if (busy_.empty()) return 0;
  const auto n =
      std::count_if(busy_.begin(), busy_.end(), [](double b) { return b >= kSaturatedBusy; });
  return static_cast<double>(n) / static_cast<double>(busy_.size());
}

double CpuSaturation::busy_quantile(double q) const {
  if (busy_.empty()) return 0;
  std::vector<double> sorted = busy_;
  std::sort(sorted.begin(), sorted.end());
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace testbed
