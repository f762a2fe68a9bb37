// `testbed doctor --budget`: measures what this machine's emulation carries, on a lab of
// its own (tbbudget: two nodes, one delayed link), and returns the budget the fit uses
// (controller/lab/fit/emulation_budget.h). The lab is brought up and taken down by the
// `testbed` verbs as children, so that it is recorded, cleaned and refused exactly as any
// other lab; it is down again when this returns or throws.
#pragma once

#include <atomic>
#include <ostream>

#include "controller/lab/fit/emulation_budget.h"

namespace testbed {

struct BudgetProbeOptions {
  double seconds = 8;  // of traffic
  // Sixteen TCP flows over a 400 Mbit/s link with 30 ms of delay: 25 Mbit/s each, a WAN
  // flow's rate, at which TCP sends the small segments (two MSS) a training run's flows
  // send on Internet2's 20-155 Mbit/s links (run_demand.h).
  int flows = 16;
  const char* bandwidth = "400mbit";
  const char* delay = "30ms";
};

// Throws std::runtime_error naming the step that failed; `log` gets a line per step.
EmulationBudget measure_budget(const BudgetProbeOptions& options, std::ostream& log,
                               const std::atomic<int>& stop);

}  // namespace testbed
