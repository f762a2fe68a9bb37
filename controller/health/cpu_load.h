// The host's side of emulation health: how much of a run the CPUs were saturated. On a
// saturated host the shapers' timers and the delay lines wake late, so links carry less
// than configured and packets are held longer than asked; this says when to suspect it.
//
// Read from /proc/stat's aggregate "cpu" line, sampled by the HealthMonitor; an interval
// is saturated when the CPUs were idle less than 5% of it (kSaturatedBusy).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

struct CpuTimes {
  uint64_t busy = 0, total = 0;  // in clock ticks, all CPUs together
};

// The aggregate line of /proc/stat; idle and iowait count as idle, the rest (user, nice,
// system, irq, softirq, steal) as busy; guest time is already inside user.
std::optional<CpuTimes> parse_proc_stat(const std::string& text);
std::optional<CpuTimes> read_proc_stat();

class CpuSaturation {
 public:
  // Busy share of an interval at or above which it counts as saturated: with a tick of
  // 10 ms and two CPUs, a 200 ms sample has 40 ticks, of which at most 2 were idle.
  static constexpr double kSaturatedBusy = 0.95;

  // One sampling interval, from the counters at its start and at its end.
  void add(const CpuTimes& start, const CpuTimes& end);
  size_t intervals() const { return busy_.size(); }
  double saturated_share() const;        // of the intervals; 0 when none
  double busy_quantile(double q) const;  // busy share of the CPUs, 0-1

 private:
  std::vector<double> busy_;
};

}  // namespace testbed
