// DiLoCo in a session, as the session's policy (runs/ps/ps_run_policy.h): the data
// centers' own sections of their final reports (agent/contracts/diloco/diloco_report.h) summed
// into the summary's "diloco": the outer steps each took, and the ring's frames dropped.
#pragma once

#include <memory>

#include "controller/runs/ps/ps_run_policy.h"

namespace testbed {

class DilocoRun : public PsRunPolicy {
 public:
  explicit DilocoRun(PsRun& run) : run_(run) {}
  void summary(nlohmann::json& s) const override;

 private:
  PsRun& run_;
};

// The list's maker: a DilocoRun for an all-reduce kind (DiLoCo's), else none.
std::unique_ptr<PsRunPolicy> make_diloco_run(PsRun& run);

}  // namespace testbed
