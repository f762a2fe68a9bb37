#include "controller/lab/delay_line_groups.h"

#include <algorithm>
#include <cmath>

namespace testbed {

std::vector<std::vector<const PlannedDelayLine*>> delay_line_groups(
    const std::vector<PlannedDelayLine>& lines, size_t processes) {
  std::vector<std::vector<const PlannedDelayLine*>> groups;
  if (lines.empty() || processes == 0) return groups;
  const size_t count = std::min(processes, lines.size());
  size_t next = 0;
  for (size_t g = 0; g < count; ++g) {
    // The first (size % count) groups take one more, so sizes differ by one at most.
    const size_t size = lines.size() / count + (g < lines.size() % count ? 1 : 0);
    groups.emplace_back();
    for (size_t i = 0; i < size; ++i) groups.back().push_back(&lines[next++]);
  }
  return groups;
}

size_t delay_line_processes(const CpuAllowance& allowance) {
  const double cpus = std::ceil(allowance.effective());
  return std::clamp<size_t>(cpus < 1 ? 1 : static_cast<size_t>(cpus), 1, kMaxDelayLineProcesses);
}

}  // namespace testbed
