// A training run in a lab that is up: one agent started in every node's namespace, the
// strategy's session (the tree strategies' TrainSession or the parameter server's
// PsSession) driven to its end, its summary written to the lab's runs/ and printed, and
// the agents stopped. A signal ends the agents before the process dies of it.
#pragma once

#include <string>

#include "controller/lab/lab_state.h"
#include "controller/options/run_options.h"
#include "netns/stop_signals.h"

namespace testbed {

// Throws UsageError for options the lab contradicts (an unknown server or worker node)
// before any agent starts; false when the run failed after starting (said on stderr), or
// was ended by one of `stop`'s signals (then stop.received() says which).
bool run_training(LabStore& store, const std::string& lab, LabState state, TrainOptions o,
                  const StopSignals& stop);

}  // namespace testbed
