#include "clock_communication.h"

#include <algorithm>
#include <cmath>

namespace testbed {

std::vector<double> clock_communication_s(const std::vector<WorkerClockStamps>& workers) {
  std::vector<double> out;
  if (workers.empty()) return out;
  for (size_t c = 0;; ++c) {
    int64_t ready = INT64_MIN, done = INT64_MIN;
    for (const auto& w : workers) {
      // Clock c ended at this worker when clock c+1 started there.
      if (c >= w.computed_ns.size() || c + 1 >= w.started_ns.size()) return out;
      ready = std::max(ready, w.computed_ns[c]);
      done = std::max(done, w.started_ns[c + 1]);
    }
    out.push_back(static_cast<double>(std::max<int64_t>(0, done - ready)) / 1e9);
  }
}

ServerLegs server_legs(const std::vector<WorkerClockStamps>& workers,
                       const std::vector<int64_t>& applied_ns) {
  ServerLegs legs;
  if (workers.empty()) return legs;
  for (size_t c = 0; c < applied_ns.size(); ++c) {
    int64_t ready = INT64_MIN, done = INT64_MIN;
    for (const auto& w : workers) {
      if (c >= w.computed_ns.size() || c + 1 >= w.started_ns.size()) return legs;
      ready = std::max(ready, w.computed_ns[c]);
      done = std::max(done, w.started_ns[c + 1]);
    }
    legs.to_server_s.push_back(static_cast<double>(std::max<int64_t>(0, applied_ns[c] - ready)) /
                               1e9);
    legs.from_server_s.push_back(static_cast<double>(std::max<int64_t>(0, done - applied_ns[c])) /
                                 1e9);
  }
  return legs;
}

nlohmann::json communication_summary(const std::vector<double>& per_clock_s) {
  nlohmann::json j = {{"per_clock_s", per_clock_s}, {"clocks", per_clock_s.size()}};
  if (per_clock_s.empty()) return j;
  std::vector<double> sorted = per_clock_s;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double x : sorted) sum += x;
  // Nearest rank: the smallest value at or above the share of the clocks.
  const auto at = [&](double share) {
    const auto rank = static_cast<size_t>(std::ceil(share * static_cast<double>(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
  };
  j["mean_s"] = sum / static_cast<double>(sorted.size());
  j["median_s"] = at(0.5);
  j["p90_s"] = at(0.9);
  return j;
}

}  // namespace testbed
