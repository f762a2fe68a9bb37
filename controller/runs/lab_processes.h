// What `up` starts and creates beside the kernel objects the applier makes: the lab's
// long-lived processes and its nodes' identities. Each is recorded in the lab's state
// before it exists, so a controller killed at any point leaves records `clean` acts on.
#pragma once

#include "lab_state.h"
#include "plan.h"

namespace testbed {

// A delay line per node that receives delayed links, and the timeline when the plan has
// schedules; returns once every delay line has bound its queues.
void start_processes(const Plan& plan, const LabStore& store, LabState& state);

// Every node's hostname and the lab's hosts file (node_identity.h).
void create_identities(const Plan& plan, const LabStore& store, LabState& state);

}  // namespace testbed
