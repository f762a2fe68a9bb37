// The host's side of emulation health: how much of a run the CPUs were saturated. On a
// saturated host the shapers' timers and the delay lines wake late, so links carry less
// than configured and packets are held longer than asked; this says when to suspect it.
//
// Read from /proc/stat, sampled by the HealthMonitor, over the CPUs the lab may use
// (netns/cpu_allowance.h): the per-CPU lines of its affinity, not the machine's aggregate,
// so that a lab confined to one CPU of two is judged by that one. A CPU quota scales what
// counts as full: under a quota of one CPU over two CPUs, the two busy half the time are
// saturated. An interval is saturated when the CPUs were idle less than 5% of it
// (kSaturatedBusy).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

struct CpuTimes {
  uint64_t busy = 0, total = 0;  // in clock ticks, all CPUs together
};

// The aggregate line of /proc/stat, or with `cpus` the sum of those CPUs' lines; idle and
// iowait count as idle, the rest (user, nice, system, irq, softirq, steal) as busy; guest
// time is already inside user. nullopt when a CPU asked for has no line.
std::optional<CpuTimes> parse_proc_stat(const std::string& text, const std::vector<int>& cpus = {});
std::optional<CpuTimes> read_proc_stat(const std::vector<int>& cpus = {});

class CpuSaturation {
 public:
  // `capacity`: the share of the counted CPUs' time the lab may use (a quota over them), 1
  // when it may use them all.
  explicit CpuSaturation(double capacity = 1.0) : capacity_(capacity > 0 ? capacity : 1.0) {}

  // Busy share of an interval at or above which it counts as saturated: with a tick of
  // 10 ms and two CPUs, a 200 ms sample has 40 ticks, of which at most 2 were idle.
  static constexpr double kSaturatedBusy = 0.95;

  // One sampling interval, from the counters at its start and at its end.
  void add(const CpuTimes& start, const CpuTimes& end);
  size_t intervals() const { return busy_.size(); }
  double saturated_share() const;        // of the intervals; 0 when none
  double busy_quantile(double q) const;  // busy share of the CPUs, 0-1

 private:
  double capacity_;
  std::vector<double> busy_;
};

}  // namespace testbed
