// Emulation health of one run, judged: was the host able to emulate what was configured?
// Three signals, each with its threshold (HealthThresholds, stated in docs/observability.md):
//   - release lateness: how late the delay lines let packets go against their due time
//     (their p99 over all delayed directions), plus packets the kernel dropped before a
//     delay line saw them (nfqueue queue or socket full), which should never happen.
//     Judged is the emulator's part: the lateness less the delay line's own wake-up stall
//     (it runs at SCHED_FIFO, so waking late means the host did not run it: measured
//     stalls of 3-18 ms on an idle 2-core virtual machine). The host's part is a note;
//   - shaped rate: per direction, bytes sent while backlogged over what the configured
//     rate allowed then (the 90th percentile over 200 ms intervals);
//   - host: the share of the run the CPUs were saturated.
// Pure data: the HealthMonitor fills it, tests build it by hand.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "netns/lateness_histogram.h"

namespace testbed {

struct HealthThresholds {
  // A millisecond is 3% of the papers' 30 ms links. On a light lab the emulator's p99 is
  // 0 (the first bucket) and later than 1 ms only when the delay line is starved, so a
  // p99 past it means one packet in a hundred saw a delay the profile did not ask for.
  // The same limit on the whole lateness turns the host's stalls into a note.
  double max_p99_lateness_ms = 1.0;
  // Backlogged links must carry 90% of their rate: HTB on a light lab gave 98.8-99.2%
  // (tests/integration/health_test.cpp's lab), and TBF, which replaced it, carries the
  // same iperf3 goodput (docs/benchmarks.md); 10% short is beyond counter granularity.
  double min_rate_ratio = 0.9;
  // Saturated half the run: at that point the other two signals are at risk even where
  // they were not caught (short backlogs, links without delay).
  double max_cpu_saturated_share = 0.5;
};

struct DirectionHealth {
  std::string from, to;
  size_t link = 0;
  // Delay line (delay-line backend, directions with delay): releases during the run.
  uint64_t delayed_packets = 0;
  LatenessHistogram lateness, emulator_lateness;  // see the header comment
  uint64_t nfqueue_dropped = 0;                   // queue full + notification lost
  // Shaper: backlog measured at the sender's FIFO leaf (either backend delays on the
  // receiving side, so the leaf holds only what waits for the rate).
  bool rate_measured = false;
  bool rate_judged = false;  // loss-free direction: see link_backlog.h
  double observed_s = 0, backlogged_s = 0;
  std::optional<double> rate_ratio;  // p90 of backlogged intervals (see link_backlog.h)
  std::optional<double> mean_ratio;  // over all backlogged intervals, errs low
  // What it carried (link_backlog.h): bytes the shaper sent during the run, and its highest
  // rate in one 200 ms interval.
  uint64_t sent_bytes = 0;
  double peak_bytes_per_s = 0;
  uint64_t shaper_drops = 0;  // the sender's queue overflowed: congestion, not a fault
};

struct HealthReport {
  double duration_s = 0;
  // The longest time between two samples of the run: 0.2 s, or more where a sample was
  // costly (a large lab: health_monitor.h).
  double sample_period_s = 0.2;
  double cpu_saturated_share = 0, cpu_busy_p50 = 0, cpu_busy_p90 = 0;
  size_t cpu_intervals = 0;
  std::vector<DirectionHealth> directions;
  HealthThresholds thresholds;
  // Over hosts (health_wire.h): the host whose CPU figures these are, the worst one's;
  // empty on one box.
  std::string cpu_host;
  // The CPUs judged: the run's affinity and quota (netns/cpu_allowance.h), which the lab's
  // agents inherit; "2 CPUs (0-1)".
  std::string cpu_scope;

  LatenessHistogram lateness() const;           // every delayed direction together
  LatenessHistogram emulator_lateness() const;  // the same, less the host's stalls
  uint64_t nfqueue_dropped() const;
  std::optional<double> min_rate_ratio() const;  // over the judged directions
  // What crossed a threshold, one phrase each; empty when healthy.
  std::vector<std::string> problems() const;
  bool healthy() const { return problems().empty(); }
  // What the host did to the run that is not the emulation's doing, one phrase each.
  std::vector<std::string> notes() const;
  // "emulation unhealthy: ...", the one line `train` and `run` print; "" when healthy.
  std::string warning() const;
  // "emulation note: ...", printed beside it; "" without notes.
  std::string note_line() const;
  nlohmann::json to_json() const;
};

// The warning line for a run's problems, or "" when there are none.
std::string unhealthy_line(const std::vector<std::string>& problems);

}  // namespace testbed
