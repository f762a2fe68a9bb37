// A launch's view of its lab's node faults (JobRunner's RankFaults): the lab's nodes.json,
// which `testbed node` and the timeline write, a crash before its signals.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "controller/launch/job_runner.h"

namespace testbed {

class LabRankFaults : public RankFaults {
 public:
  explicit LabRankFaults(std::string lab_dir) : lab_dir_(std::move(lab_dir)) {}
  std::optional<int> crash_of(const std::string& node, pid_t pid) override;
  int restarts(const std::string& node) override;
  std::optional<MembershipRequest> membership(const std::string& node) override;

 private:
  // The runner asks every rank's node at each poll (every 0.25 s): one read serves a poll.
  static constexpr std::chrono::milliseconds kStatesFreshFor{100};
  const nlohmann::json& states_for_poll();

  std::string lab_dir_;
  std::optional<std::chrono::steady_clock::time_point> read_at_;
  nlohmann::json states_;
};

}  // namespace testbed
