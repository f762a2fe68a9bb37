// A topology with every rate multiplied by one factor (a fit's, fit_decision.h): each
// direction's rate, every rate its schedule steps to, draws from or replays, the UDP
// cross traffic's rates, and what is sized in bytes with them (explicit queues, Poisson
// flows), so that each takes the same time at the scaled rate as at the written one.
// Delays, jitter and loss stay: they are the WAN's, not the machine's.
#pragma once

#include "controller/topology/topology.h"

namespace testbed {

// `factor` in (0, 1]. No rate falls below 1 bit/s, no queue below two frames.
void scale_topology_rates(Topology& topology, double factor);

}  // namespace testbed
