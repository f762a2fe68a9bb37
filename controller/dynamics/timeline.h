// Runs a lab's schedules: each change is applied at start + at x time_scale, in place, and
// logged to timeline.csv with the lag between when it was due and when it took effect.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "link_control.h"

namespace testbed {

struct TimelineOptions {
  double time_scale = 1.0;  // 0.1 runs a 180 s schedule every 18 s
  std::string lab_dir;      // timeline.csv and current.json go here
};

class Timeline {
 public:
  Timeline(std::vector<LiveDirection> directions, LinkChanger& changer, TimelineOptions options,
           const std::atomic<bool>& stop)
      : directions_(std::move(directions)), changer_(changer), options_(options), stop_(stop) {}

  // Returns when `stop` is set, or when every schedule has run out (steps, or a trace
  // that does not loop).
  void run();

 private:
  std::vector<LiveDirection> directions_;
  LinkChanger& changer_;
  TimelineOptions options_;
  const std::atomic<bool>& stop_;
};

}  // namespace testbed
