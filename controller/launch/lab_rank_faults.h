// A launch's view of its lab's node faults (JobRunner's RankFaults): the lab's nodes.json,
// which `testbed node` and the timeline write, a crash before its signals.
#pragma once

#include <string>

#include "controller/launch/job_runner.h"

namespace testbed {

class LabRankFaults : public RankFaults {
 public:
  explicit LabRankFaults(std::string lab_dir) : lab_dir_(std::move(lab_dir)) {}
  std::optional<int> crash_of(const std::string& node, pid_t pid) override;
  int restarts(const std::string& node) override;
  std::optional<MembershipRequest> membership(const std::string& node) override;

 private:
  std::string lab_dir_;
};

}  // namespace testbed
