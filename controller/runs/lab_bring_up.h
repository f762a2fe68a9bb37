// Bringing a lab up, below the verbs: the checks that refuse before anything changes, the
// lab's state written before each thing it records exists, the kernel changes, the nodes'
// identities, compute and processes, and the exporter; a failure or a signal half-way rolls
// everything back. `testbed up` parses its arguments into an UpRequest and prints the
// report; a pod's sidecar or a test can call bring_up_lab the same way.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/transport/curve_keys.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/plan.h"
#include "controller/runs/observability.h"
#include "netns/stop_signals.h"

namespace testbed {

struct UpRequest {
  // What this host builds: the whole lab, or its slice. Moved into the lab's state rather
  // than copied (a 1000-node plan is about 54 MB in memory).
  Plan plan;
  // The whole lab when `plan` is a slice of it (every node's hosts file names all of it);
  // null when `plan` is the whole lab.
  const Plan* whole = nullptr;
  // In a lab spread over hosts: this host's name, the placement (kept in the lab's state)
  // and this host's CurveZMQ key pair when the placement has keys. Empty on one box.
  std::string host;
  nlohmann::json placement;
  std::optional<CurveKeyPair> host_key;
  bool adopt = false;  // use node namespaces someone else made (a pod's); never delete them
  double time_scale = 1.0;
  double start_at_unix_s = 0;  // the timeline's zero, the same on every host; 0: now
  ObservabilityOptions observability;
};

struct UpReport {
  size_t kernel_changes = 0;
  double seconds = 0;  // from the first kernel change to everything started
  // Where the time went, phase by phase in order (`up --timings`).
  std::vector<std::pair<std::string, double>> phases;
  std::vector<std::string> watch;  // URLs and advice for watching the lab
  LabState state;                  // as saved, phase "up"
  // The lab's lock, still held: the caller lets it go (or keeps the lab in the foreground).
  std::optional<LabLock> lock;
};

// Nothing was changed: the lab is taken or has state, a namespace is someone else's, the
// kernel lacks what the plan needs. The message says what to do.
class UpRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Brings the lab up. Throws UpRefused before any change, and ApplyError (controller/lab/
// applier.h) after rolling back a failure or a signal caught by `stop`: with no rollback
// errors the lab's state is gone; otherwise it is kept in phase "failed" for `testbed clean`.
UpReport bring_up_lab(UpRequest request, const LabStore& store, const StopSignals& stop);

}  // namespace testbed
