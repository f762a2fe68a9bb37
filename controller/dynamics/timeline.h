// Runs a lab's schedules: each change is applied at start + at x time_scale, in place, and
// logged to timeline.csv with the lag between when it was due and when it took effect.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "controller/dynamics/link_control.h"
#include "controller/dynamics/node_faults.h"
#include "controller/dynamics/rerouter.h"
#include "controller/topology/node_events.h"

namespace testbed {

struct TimelineOptions {
  double time_scale = 1.0;  // 0.1 runs a 180 s schedule every 18 s
  std::string lab_dir;      // timeline.csv and current.json go here
  // The schedules' time zero as Unix time (CLOCK_REALTIME, which chrony or PTP keep the
  // same on every host); 0: the moment run() starts.
  double start_at_unix_s = 0;
  // Sets a node's CPU share (a schedule's cpus event; node_compute_control.h). Null: such
  // an event fails, logged.
  std::function<void(const std::string& node, std::optional<double> cpus)> set_cpus;
};

// Time zero on the monotonic clock (which the timeline sleeps on) for a time zero
// `start_at_unix_s` on the wall clock, read now as `real_now_ns` and `mono_now_ns`.
int64_t monotonic_zero_ns(double start_at_unix_s, int64_t real_now_ns, int64_t mono_now_ns);

// A node's schedule as the timeline runs it (node_events.h): each pause with its resume.
struct LiveNodeSchedule {
  std::string node;
  std::vector<NodeChange> changes;
  // A straggler (straggler.h): its share's changes come window by window, from its model,
  // the node's share and its stream (its index in the plan); `slowed` carries the state.
  std::optional<StragglerModel> straggler;
  double cpus = 0;
  uint64_t stream = 0;
  bool slowed = false;
};

// The nodes of `plan` (plan.json) that have a schedule.
std::vector<LiveNodeSchedule> live_node_schedules(const Plan& plan);

class Timeline {
 public:
  Timeline(std::vector<LiveDirection> directions, LinkChanger& changer, TimelineOptions options,
           const std::atomic<bool>& stop, std::vector<LiveNodeSchedule> nodes = {},
           NodeFaulter* faulter = nullptr, Rerouter* rerouter = nullptr)
      : directions_(std::move(directions)),
        changer_(changer),
        options_(options),
        stop_(stop),
        nodes_(std::move(nodes)),
        faulter_(faulter),
        rerouter_(rerouter) {}

  // Returns when `stop` is set, or when every schedule has run out (steps, or a trace
  // that does not loop).
  void run();

 private:
  std::vector<LiveDirection> directions_;
  LinkChanger& changer_;
  TimelineOptions options_;
  const std::atomic<bool>& stop_;
  std::vector<LiveNodeSchedule> nodes_;
  NodeFaulter* faulter_;
  // A lab that reroutes: converged a delay after each cut and restore, on a thread of its
  // own (convergence_worker.h); the rerouter's kernel is used by that thread alone.
  Rerouter* rerouter_;
};

}  // namespace testbed
