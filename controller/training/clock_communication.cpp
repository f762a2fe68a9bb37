#include "controller/training/clock_communication.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace testbed {

namespace {

struct ClockBounds {
  int64_t ready, done;  // the last worker's update computed; the last worker's next clock
};

// Clock c's bounds, once every worker has computed it and started the next.
std::optional<ClockBounds> bounds_of(const std::vector<WorkerClockStamps>& workers, size_t c) {
  if (workers.empty()) return std::nullopt;
  ClockBounds b{INT64_MIN, INT64_MIN};
  for (const auto& w : workers) {
    // Clock c ended at this worker when clock c+1 started there.
    if (c >= w.computed_ns.size() || c + 1 >= w.started_ns.size()) return std::nullopt;
    b.ready = std::max(b.ready, w.computed_ns[c]);
    b.done = std::max(b.done, w.started_ns[c + 1]);
  }
  return b;
}

double seconds_between(int64_t from_ns, int64_t to_ns) {
  return static_cast<double>(std::max<int64_t>(0, to_ns - from_ns)) / 1e9;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

}  // namespace

std::vector<double> clock_communication_s(const std::vector<WorkerClockStamps>& workers) {
  std::vector<double> out;
  for (size_t c = 0;; ++c) {
    const auto b = bounds_of(workers, c);
    if (!b) return out;
    out.push_back(seconds_between(b->ready, b->done));
  }
}

ServerLegs server_legs(const std::vector<WorkerClockStamps>& workers,
                       const std::vector<int64_t>& applied_ns) {
  ServerLegs legs;
  for (size_t c = 0; c < applied_ns.size(); ++c) {
    const auto b = bounds_of(workers, c);
    if (!b) break;
    legs.to_server_s.push_back(seconds_between(b->ready, applied_ns[c]));
    legs.from_server_s.push_back(seconds_between(applied_ns[c], b->done));
  }
  return legs;
}

void add_server_legs(const ServerLegs& legs, nlohmann::json& communication) {
  communication["to_server_mean_s"] = mean(legs.to_server_s);
  communication["from_server_mean_s"] = mean(legs.from_server_s);
}

std::vector<double> clock_compute_s(const std::vector<WorkerClockStamps>& workers) {
  std::vector<double> out;
  for (const auto& w : workers) {
    const size_t n = std::min(w.started_ns.size(), w.computed_ns.size());
    for (size_t c = 0; c < n; ++c)
      // A clock not computed (the run stopped in it) has no stamp and is not counted.
      if (w.computed_ns[c] >= w.started_ns[c])
        out.push_back(static_cast<double>(w.computed_ns[c] - w.started_ns[c]) / 1e9);
  }
  return out;
}

nlohmann::json communication_summary(const std::vector<double>& per_clock_s) {
  nlohmann::json j = {{"per_clock_s", per_clock_s}, {"clocks", per_clock_s.size()}};
  if (per_clock_s.empty()) return j;
  std::vector<double> sorted = per_clock_s;
  std::sort(sorted.begin(), sorted.end());
  // Nearest rank: the smallest value at or above the share of the clocks.
  const auto at = [&](double share) {
    const auto rank = static_cast<size_t>(std::ceil(share * static_cast<double>(sorted.size())));
    return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
  };
  j["mean_s"] = mean(sorted);
  j["median_s"] = at(0.5);
  j["p90_s"] = at(0.9);
  return j;
}

}  // namespace testbed
