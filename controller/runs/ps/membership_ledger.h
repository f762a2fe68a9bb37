// What an elastic run keeps of its membership, whatever the system (DiLoCo's rounds,
// the asynchronous parameter server's clocks): each change (join, leave, crash) as it
// takes effect, the members over time, each worker's time in, and the run's metrics event
// for each (testbed_elastic_members, ...: observe/train_metrics.h). The summary's
// membership section and the compute utilization over each worker's time in come from it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/runs/ps/ps_run_policy.h"

namespace testbed {

class MembershipLedger {
 public:
  struct Change {
    double t;
    std::string node, what;  // join, leave, crash
    uint64_t step;           // the system's steps before it took effect
    double lost_s = 0;
    uint64_t catch_up_bytes = 0;
    double catch_up_s = -1;  // a join: from its taking effect to the model taken
  };
  // `step_name`: what `step` counts in the summary ("outer_step", "clock").
  MembershipLedger(PsRun& run, std::string step_name)
      : run_(run), step_name_(std::move(step_name)) {}

  // The members at the start (in from time 0).
  void start(const std::vector<int>& members);
  // A change that took effect, `members` being those in after it; its index. A join's
  // node is in from c.t on; a leave's or a crash's was in until then.
  size_t record(const Change& c, const std::vector<int>& members);
  Change& change(size_t i) { return changes_.at(i); }

  // Writes `section` (the summary's membership): the changes, the members over time and
  // at the end, and compute utilization over each worker's time in, which reads the
  // run's wall time and per-worker utilization from `s`.
  void summary(nlohmann::json& section, const nlohmann::json& s,
               const std::vector<int>& members) const;

 private:
  void publish(const std::vector<int>& members, const Change* c);
  nlohmann::json utilization_of_member_time(const nlohmann::json& s) const;

  PsRun& run_;
  std::string step_name_;
  std::vector<Change> changes_;
  std::vector<std::pair<double, size_t>> members_over_time_;  // (t, how many)
  std::map<int, double> member_since_;  // a member -> when it came in (run seconds)
  std::map<int, double> member_s_;      // a node -> its member seconds before now
};

}  // namespace testbed
