// Turns a validated topology into a plan. Pure: no system calls, so plans are testable
// without root and `testbed plan` shows exactly what `up` will do.
#pragma once

#include <string>

#include "controller/lab/plan.h"
#include "controller/topology/topology.h"

namespace testbed {

// Every object the testbed creates has a name starting with "tb" (docs/topologies.md, what
// the testbed owns).
std::string namespace_name(const std::string& lab, const std::string& node);
// The interface at one end of link `link_index`, named after the peer it faces.
std::string interface_name(size_t link_index, const std::string& peer);

// The IFB device on the receiving side of link `link_index`'s direction from `sender`
// (netem backend), in the receiver's namespace.
std::string ifb_name(size_t link_index, const std::string& sender);

// Token-bucket parameters that make one direction shape accurately at its rate (see planner.cpp).
RateShaping size_shaping(const DirectionParams& params);
// netem's parameters for one direction's delay, jitter and loss, on the receiving side.
NetemParams size_netem(const DirectionParams& params);

// `kernel_has_netem` decides the backend when the topology leaves it to `auto`.
Plan make_plan(const Topology& topo, bool kernel_has_netem);

}  // namespace testbed
