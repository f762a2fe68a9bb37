// Watches the emulation while a run goes on, on its own thread: every kSamplePeriod it
// reads each shaped direction's HTB counters and /proc/stat; at the start and the end it
// asks the delay lines for their lateness histograms. stop() returns the run's
// HealthReport. Every few seconds the running figures go to a MetricsSink for the
// dashboards.
//
// The Kernel is used only on the monitor's thread (netlink handles are not shared), so
// the caller hands over one of its own; tests pass a FakeKernel.
#pragma once

#include <atomic>
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
  // classes; fine enough that a backlog that empties between samples is rare.
  static constexpr int kSamplePeriodMs = 200;
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
};

}  // namespace testbed
