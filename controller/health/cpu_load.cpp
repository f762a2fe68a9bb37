#include "controller/health/cpu_load.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace testbed {

namespace {

// One line's times: user nice system idle iowait irq softirq steal (guest and guest_nice
// follow, and are already counted in user and nice).
std::optional<CpuTimes> line_times(std::istringstream& in) {
  uint64_t v[8] = {};
  int n = 0;
  while (n < 8 && in >> v[n]) ++n;
  if (n < 4) return std::nullopt;
  CpuTimes t;
  for (int i = 0; i < n; ++i) t.total += v[i];
  t.busy = t.total - v[3] - (n > 4 ? v[4] : 0);
  return t;
}

}  // namespace

std::optional<CpuTimes> parse_proc_stat(const std::string& text, const std::vector<int>& cpus) {
  std::istringstream lines(text);
  CpuTimes sum;
  size_t found = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::string name;
    in >> name;
    if (cpus.empty()) {
      if (name == "cpu") return line_times(in);
      continue;
    }
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0) continue;
    const std::string digits = name.substr(3);
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (std::find(cpus.begin(), cpus.end(), std::stoi(digits)) == cpus.end()) continue;
    const auto t = line_times(in);
    if (!t) return std::nullopt;
    sum.busy += t->busy;
    sum.total += t->total;
    ++found;
  }
  if (cpus.empty() || found != cpus.size()) return std::nullopt;
  return sum;
}

std::optional<CpuTimes> read_proc_stat(const std::vector<int>& cpus) {
  std::ifstream in("/proc/stat");
  std::stringstream text;
  text << in.rdbuf();
  return parse_proc_stat(text.str(), cpus);
}

void CpuSaturation::add(const CpuTimes& start, const CpuTimes& end) {
  if (end.total <= start.total || end.busy < start.busy) return;  // no tick passed
  const double busy =
      static_cast<double>(end.busy - start.busy) / static_cast<double>(end.total - start.total);
  busy_.push_back(std::min(1.0, busy / capacity_));
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
