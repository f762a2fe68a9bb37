// DiLoCo in a session, as the session's policy (runs/ps/ps_run_policy.h): the data
// centers' own sections of their final reports (agent/contracts/diloco/diloco_report.h) summed
// into the summary's "diloco": the outer steps each took, and the ring's frames dropped.
#pragma once

#include <memory>
#include <optional>

#include "controller/runs/diloco/elastic_membership.h"
#include "controller/runs/ps/ps_run_policy.h"

namespace testbed {

class DilocoRun : public PsRunPolicy {
 public:
  explicit DilocoRun(PsRun& run);
  void setup(TrainingSetup& setup, const JobConfig& job, size_t parameters) override;
  bool awaited(size_t node) const override;
  void started(double start_unix_s) override;
  bool event(size_t node, const nlohmann::json& e, double t) override;
  double drive(double now_s) override;
  bool node_died(size_t node, double now_s) override;
  bool evaluates(size_t node) const override;
  void summary(nlohmann::json& s) const override;

 private:
  PsRun& run_;
  std::optional<ElasticMembership> elastic_;  // when the run's policy asks for it
};

// The list's maker: a DilocoRun for an all-reduce kind (DiLoCo's), else none.
std::unique_ptr<PsRunPolicy> make_diloco_run(PsRun& run);

}  // namespace testbed
