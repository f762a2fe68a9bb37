#include "controller/lab/delay_line_groups.h"

#include <algorithm>
#include <cmath>

namespace testbed {

size_t delay_line_weight(const PlannedDelayLine& line) {
  return line.queues.size() + 1;
}

std::vector<std::vector<const PlannedDelayLine*>> delay_line_groups(
    const std::vector<PlannedDelayLine>& lines, size_t processes) {
  std::vector<std::vector<const PlannedDelayLine*>> groups;
  if (lines.empty() || processes == 0) return groups;
  const size_t count = std::min(processes, lines.size());
  size_t total = 0;
  for (const auto& l : lines) total += delay_line_weight(l);
  size_t next = 0, done = 0;
  for (size_t g = 0; g < count; ++g) {
    groups.emplace_back();
    const size_t groups_after = count - g - 1;    // each of them still gets a node
    const size_t goal = total * (g + 1) / count;  // where this group's share ends
    while (next < lines.size() - groups_after) {
      const size_t w = delay_line_weight(lines[next]);
      // A node goes where it leaves the cut nearer its goal; a group is never empty.
      if (!groups.back().empty() && done + w > goal && done + w - goal > goal - done) break;
      groups.back().push_back(&lines[next++]);
      done += w;
      if (done >= goal) break;
    }
  }
  return groups;
}

size_t delay_line_processes(const CpuAllowance& allowance) {
  const double cpus = std::ceil(allowance.effective());
  return std::clamp<size_t>(cpus < 1 ? 1 : static_cast<size_t>(cpus), 1, kMaxDelayLineProcesses);
}

}  // namespace testbed
