// Watches the emulation while a run goes on, on its own thread: every kSamplePeriod it
// reads each shaped direction's TBF counters and /proc/stat, and in between looks again
// at the queues of the directions that were backlogged (link_backlog.h); at the start and the end
// it asks the delay lines for their lateness histograms. stop() returns the run's HealthReport.
// Every few seconds the running figures go to a MetricsSink for the dashboards.
//
// The Kernel is used only on the monitor's thread (netlink handles are not shared), so
// the caller hands over one of its own; tests pass a FakeKernel.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "controller/dynamics/link_control.h"
#include "controller/health/cpu_load.h"
#include "controller/health/delay_line_query.h"
#include "controller/health/health_report.h"
#include "controller/health/link_backlog.h"
#include "netns/cpu_allowance.h"
#include "netns/kernel.h"

namespace testbed {

class HealthMonitor {
 public:
  // 200 ms: five samples a second per direction, each one netlink dump of a device's
  // classes. A backlog that empties between samples is not rare (bursts at about this
  // period), which the probes below catch.
  static constexpr int kSamplePeriodMs = 200;
  // Inside each interval, the directions backlogged at its start are looked at this often
  // (link_backlog.h): shorter than a ring chunk's burst on the fast links that misled the
  // 200 ms look (~40 ms), so a queue that drains between bursts is seen drained. Three
  // looks an interval; on a 150-direction lab sampled every 50 ms instead, the CPUs' median
  // busy share went from 0.12 to 0.30, which the looks at backlogged directions only avoid.
  static constexpr int kProbePeriodMs = 50;
  // A sample may cost at most this share of the time between samples: past it, samples
  // are spaced out to this multiple of the CPU the last one took (the monitor's own, not
  // the wall time, which on a loaded host is mostly waiting for a CPU), and the probes
  // stop. A sample reads every direction's shaper, a link dump and a qdisc dump per
  // namespace: 0.25 s at 1000 nodes, so at 200 ms the monitor held a core and the run it
  // watched was judged by CPUs it had saturated itself. 10: a tenth of a core, and every
  // lab of up to about 80 nodes is sampled every 200 ms as before.
  static constexpr int kMaxCostShare = 10;
  // But never further apart than this: the CPUs' saturation is judged per interval, and a
  // saturated second hides in a long interval's average.
  static constexpr int kMaxSamplePeriodMs = 2000;
  // The time to the next sample after one that took `took` of the monitor's CPU.
  static std::chrono::milliseconds sample_period(std::chrono::nanoseconds took);
  // Running figures go out this often (they cost a delay-line round trip each).
  static constexpr int kPublishEveryMs = 5000;
  // A delay line answers in microseconds; a starved one may take longer, not this long.
  static constexpr int kQueryTimeoutMs = 1000;

  using Publish = std::function<void(const HealthReport&)>;
  HealthMonitor(std::unique_ptr<Kernel> kernel, std::string lab_dir,
                std::vector<LiveDirection> directions, HealthThresholds thresholds = {},
                Publish publish = nullptr);
  ~HealthMonitor();
  HealthMonitor(const HealthMonitor&) = delete;
  HealthMonitor& operator=(const HealthMonitor&) = delete;

  void start();
  HealthReport stop();

 private:
  void loop();
  void sample(double t_s);
  void probe();  // the directions backlogged at the last sample, their queues only
  HealthReport report(const DelayLineSnapshot& end) const;

  std::unique_ptr<Kernel> kernel_;
  std::string lab_dir_;
  std::vector<LiveDirection> directions_;
  std::vector<std::string> delay_nodes_;
  HealthThresholds thresholds_;
  Publish publish_;

  std::thread thread_;
  std::mutex mutex_;  // guards the meters below between the thread and stop()
  std::condition_variable wake_;
  bool stopping_ = false;
  DelayLineSnapshot start_lines_;
  std::vector<BacklogMeter> meters_;
  std::vector<uint64_t> drops_start_, drops_now_;
  CpuAllowance allowance_;  // the CPUs judged: this run's, which its agents inherit
  CpuSaturation cpu_;
  std::optional<CpuTimes> last_cpu_;
  double elapsed_s_ = 0;
  std::chrono::milliseconds longest_period_{kSamplePeriodMs};  // reported: sample_period_s
};

}  // namespace testbed
