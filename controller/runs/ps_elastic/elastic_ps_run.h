// The controller's side of an elastic asynchronous parameter server
// (agent/contracts/ps_elastic_messages.h), as the session's policy. The servers hold the
// model and wait for no worker, so membership needs no round: a worker's crash is only
// counted (the run goes on while a worker is left); a leave (`testbed node leave`, a
// schedule's, a churn model's) tells the worker to push what it computes and wait
// outside; a join tells one outside to pull the servers' latest values and go on from
// its own clock. Each worker runs its clocks up to --iterations; one outside is not
// waited for. A worker that joined mid-run is stopped (after the clock it computes) once
// every worker in from the start has finished: the run's length is theirs, as an elastic
// run's outer steps are fixed, and a joiner's clocks are its own count. The loss curve,
// the progress lines and the final loss are over the members in from the start (all read
// the servers' one model). Servers keep ending the run when they die.
//
// The summary's `membership` (controller/runs/ps/membership_ledger.h) holds each
// change at the worker's clock, the members over time, and compute utilization over
// each worker's time in.
#pragma once

#include <memory>
#include <set>
#include <vector>

#include "controller/runs/ps/membership_ledger.h"
#include "controller/runs/ps/node_requests.h"
#include "controller/runs/ps/ps_run_policy.h"

namespace testbed {

class ElasticPsRun : public PsRunPolicy {
 public:
  explicit ElasticPsRun(PsRun& run)
      : run_(run), requests_(run.lab_dir(), run.names()), ledger_(run, "clock") {}
  void setup(TrainingSetup& setup, const JobConfig& job, size_t parameters) override;
  void started(double start_unix_s) override;
  bool event(size_t node, const nlohmann::json& e, double t) override;
  double drive(double now_s) override;
  bool node_died(size_t node, double now_s) override;
  bool awaited(size_t node) const override { return !outside_.count(static_cast<int>(node)); }
  bool evaluates(size_t node) const override;
  void summary(nlohmann::json& s) const override;

 private:
  bool in(int node) const;
  bool take(size_t node, const nlohmann::json& e, double t);  // event(), unguarded

  PsRun& run_;
  NodeRequests requests_;
  MembershipLedger ledger_;
  std::vector<int> members_;
  std::set<int> outside_;  // left, or not yet joined
  std::set<int> leaving_;  // told to leave, not yet out
  std::set<int> crashed_;
  std::set<int> joined_;          // came in mid-run (outside at some time)
  bool joiners_stopped_ = false;  // told to stop: the members from the start are done
};

// The list's maker: for an asynchronous run whose options ask for elastic workers.
std::unique_ptr<PsRunPolicy> make_elastic_ps_run(PsRun& run);

}  // namespace testbed
