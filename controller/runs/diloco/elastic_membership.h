// The controller's side of an elastic DiLoCo or Streaming DiLoCo run (a round there is
// one fragment's sync; agent/contracts/elastic_messages.h):
// it holds who is in, as INTELLECT-1's ElasticDeviceMesh holds its global group in a
// store. When every member's round is ready it names the attempt's members; when every
// member has the sum it commits it. A member that crashes drops out: an attempt under way
// is begun again over those left (the round it cost is counted), and the run goes on while
// one member is left. A member told to leave (`testbed node leave`, or its node's
// schedule) is drained: it takes part in the next commit, then waits outside. A node
// outside (its schedule's first leave, join or crash is a join, it left before the run, or
// it left during it: a provider's machine that comes back) joins when told (`testbed node
// join`, or its schedule): at the next commit a member sends it the shared model over the
// WAN, and it is a member of the next round.
//
// Each change is in the summary's diloco.membership: when, which node, what, the outer
// step it took effect at, and the seconds it cost those left: for a crash mid-attempt the
// attempt's time until the death was seen (it is begun again); for a crash while the
// others waited for the dead one's round, their wait; a leave, drained at a commit, none.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "controller/runs/ps/membership_ledger.h"
#include "controller/runs/ps/node_requests.h"
#include "controller/runs/ps/ps_run_policy.h"

namespace testbed {

class ElasticMembership {
 public:
  explicit ElasticMembership(PsRun& run)
      : run_(run), requests_(run.lab_dir(), run.names()), ledger_(run, "outer_step") {}
  // Who starts outside, written into the agents' setup (the policy's `away`).
  void setup(TrainingSetup& setup);
  // The workers' nodes but those outside are in; their deaths come as events from now on.
  void started(double start_unix_s);
  bool event(size_t node, const nlohmann::json& e, double t);
  bool node_died(size_t node, double t);
  // Leave requests recorded in the lab's node states since the start (polled).
  double drive(double now_s);
  bool in(size_t node) const;
  // Whether the run waits for this worker's end: not for one that never came in.
  bool awaited(size_t node) const { return !away_.count(static_cast<int>(node)); }
  // Writes s["diloco"]["membership"]; reads the run's wall time and compute utilization.
  void summary(nlohmann::json& s) const;

 private:
  void try_reduce(double t);
  void issue(double t);
  void commit(double t);
  std::optional<int> donor_for(int except) const;

  PsRun& run_;
  NodeRequests requests_;
  MembershipLedger ledger_;
  std::vector<int> members_;  // in ring order
  std::set<int> ready_, reduced_, leaving_, crashed_;
  std::set<int> away_, joining_;         // outside; told to join, at the next commit
  std::map<int, size_t> catching_up_;    // a joiner -> its change, until it has the model
  std::map<int, int> donor_;             // a joiner -> the member sending it the model
  std::map<int, size_t> joined_change_;  // a joiner with the model, until its first round
  bool last_round_ = false;              // the agents said so: no join after its commit
  uint64_t seq_ = 0;
  bool in_flight_ = false;
  uint64_t commits_ = 0;
  uint64_t attempts_lost_ = 0;
  double issued_t_ = 0;      // the attempt under way's
  double last_ready_t_ = 0;  // the last member's round_ready this round
};

}  // namespace testbed
