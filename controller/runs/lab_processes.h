// What `up` starts and creates beside the kernel objects the applier makes: the lab's
// long-lived processes and its nodes' identities. Each is recorded in the lab's state
// before it exists, so a controller killed at any point leaves records `clean` acts on.
#pragma once

#include "controller/lab/delay_line_groups.h"
#include "controller/lab/lab_state.h"
#include "controller/lab/plan.h"

namespace testbed {

// The delay lines (delay_line_groups), and the timeline when the plan has schedules;
// returns once every delay line has bound its queues.
void start_processes(const Plan& plan, const LabStore& store, LabState& state);

// The cross traffic's generators (lab/cross_traffic_plan.h) of this host's nodes, each
// recorded before it starts; called by start_processes.
void start_cross_traffic(const Plan& plan, const LabStore& store, LabState& state);

// The hostname of every node of `plan` and the hosts file of `lab` (node_identity.h): the
// same plan on one box; on a host bringing up its slice, every node of the whole lab, so
// names resolve across hosts too.
void create_identities(const Plan& plan, const Plan& lab, const LabStore& store, LabState& state);

// The nodes' control groups, with their CPUs and memory (docs/compute.md).
void create_node_cgroups(const Plan& plan, const LabStore& store, LabState& state);

}  // namespace testbed
