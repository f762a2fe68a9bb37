// A plan cut into one slice per host (docs/multihost.md). Every step of the plan lands on
// exactly one host; a veth whose ends are on different hosts becomes an ExpectInterface
// step at each end (the link is made by meshnet or a VXLAN), and the shaping, delay hooks,
// addresses and routes around it stay where they are in the whole plan: TBF on the
// sender's host, the delay line on the receiver's. Pure.
#pragma once

#include <string>
#include <vector>

#include "controller/hosts/host_placement.h"
#include "controller/lab/plan.h"

namespace testbed {

struct PlanSlice {
  std::string host;
  // A plan of its own, so the one-box applier, state and teardown serve it: this host's
  // nodes, delay lines, routes and steps, and every link with an end here.
  Plan plan;
  size_t expected_interfaces = 0;  // link ends made outside the testbed
  size_t vxlan_interfaces = 0;     // link ends the slice makes as VXLANs (underlay given)
};

// One slice per host of `placement`, in its order. Throws std::invalid_argument when the
// placement leaves a node of the plan without a host.
std::vector<PlanSlice> slice_plan(const Plan& plan, const HostPlacement& placement);

// The slice of one host; throws std::invalid_argument naming the hosts when it is unknown.
PlanSlice slice_for_host(const Plan& plan, const HostPlacement& placement, const std::string& host);

}  // namespace testbed
