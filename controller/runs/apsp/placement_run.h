// The placement strategies in a parameter-server session, as the session's policy
// (runs/ps/ps_run_policy.h): APSP (or a baseline's fixed server) over the lab's links at
// their rates now chooses the server, and each worker's source route with its pace
// (controller/placement); the agents follow the routes (agent/protocols/apsp/); the summary
// sets one epoch's communication time beside what the placement predicted.
#pragma once

#include <memory>

#include "controller/runs/ps/ps_run_policy.h"
#include "controller/training/apsp/apsp_options.h"

namespace testbed {

class PlacementRun : public PsRunPolicy {
 public:
  explicit PlacementRun(PsRun& run) : run_(run), o_(run.options()), knobs_(apsp_knobs(o_.policy)) {}
  // A server only: the placement's node serves, every other node is a worker (the paper).
  bool roles(std::vector<int>& workers, std::vector<int>& servers) override;
  void setup(TrainingSetup& setup, const JobConfig& job, size_t parameters) override;
  void summary(nlohmann::json& s) const override;

 private:
  PsRun& run_;
  const TrainOptions& o_;
  const ApspKnobs knobs_;            // its options, typed
  nlohmann::json placement_;         // what the placement chose (placement_report.h)
  std::vector<SourceRoute> routes_;  // the chosen server's flows, for the agents
};

// The list's maker: a PlacementRun for a placement strategy, else none.
std::unique_ptr<PsRunPolicy> make_placement_run(PsRun& run);

}  // namespace testbed
