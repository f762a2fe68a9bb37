// Gaia's data centers in a parameter-server session, as the session's policy
// (runs/ps/ps_run_policy.h): every data center holds a full replica and is its own server;
// the agents' setup carries each one's mirrors and the window of data its links may have
// in flight (controller/training/gaia/gaia_plan.h); while the run goes, the replicas are
// polled for how far they drift apart (gaia_divergence.cpp), and the data centers' verdicts
// on a mirror cut off are kept; the summary adds Gaia's figures.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "controller/runs/ps/ps_run_policy.h"
#include "controller/training/gaia/gaia_options.h"
#include "controller/training/gaia/gaia_plan.h"
#include "controller/training/gaia/replica_divergence.h"

namespace testbed {

class GaiaRun : public PsRunPolicy {
 public:
  explicit GaiaRun(PsRun& run) : run_(run), o_(run.options()) {}
  // Every data center holds a full replica: its own server.
  bool roles(std::vector<int>& workers, std::vector<int>& servers) override;
  void setup(TrainingSetup& setup, const JobConfig& job, size_t parameters) override;
  void started(double start_unix_s) override;
  bool event(size_t node, const nlohmann::json& e, double t) override;
  double drive(double now_s) override;  // the replicas polled every eval interval
  void summary(nlohmann::json& s) const override;
  std::string consistency_label() const override { return gaia_label(knobs()); }
  std::string server_role() const override { return "replica"; }

 private:
  GaiaKnobs knobs() const { return gaia_knobs(o_.policy, o_.t_in_passes); }
  nlohmann::json partition_summary() const;  // gaia_divergence.cpp

  PsRun& run_;
  const TrainOptions& o_;
  GaiaOverlay overlay_;  // the data-center groups and hubs of the run
  std::unique_ptr<ReplicaDivergence> divergence_;
  nlohmann::json mirror_cuts_ = nlohmann::json::array();  // {t, node, mirror, cut}
  uint64_t malformed_digests_ = 0;
  double start_unix_s_ = 0;  // the run's start on the wall clock (the lab's timeline's)
};

// The list's maker: a GaiaRun for Gaia's kind of run, else none.
std::unique_ptr<PsRunPolicy> make_gaia_run(PsRun& run);

}  // namespace testbed
