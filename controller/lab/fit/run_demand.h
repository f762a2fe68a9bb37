// What a lab may ask of the emulation: the packets per second its delayed link directions
// can carry, all busy at once. The fit (fit_decision.h) holds it against the machine's
// budget (emulation_budget.h).
//
// It is an upper bound, and on purpose: a direction cannot carry more than its rate, so a
// run within it cannot overload the emulator whatever its strategy does. A strategy that
// syncs over a star keeps a fraction of the links busy (NetStorm's default job on
// Internet2 moved 0.8 Gbit/s of the 2.6 its 26 directions allow), so the bound is cautious
// by that fraction; docs/fit.md has the figures.
//
// Packets, not bits: a delay line's cost is per packet. At WAN rates TCP sends a segment
// of two MSS at a time (the kernel's TSO autosizing: 1 ms of the pacing rate, at least two
// segments), which the receiving side sees as one packet; measured on a 66 Mbit/s link
// with four flows, 2,875 bytes per data packet, and as many ACK packets the other way. So
// a direction's rate over 2 x 1448 bytes, counted once for its data and once for the
// ACKs in the reverse direction when that one is delayed too.
#pragma once

#include <nlohmann/json.hpp>

#include "controller/lab/plan.h"

namespace testbed {

// Two MSS of a 1500-byte MTU's TCP segment (1448 payload bytes after the timestamp
// option) plus their headers: the smallest packet TCP sends in bulk at these rates, so
// the most packets a rate makes.
constexpr double kBytesPerDataPacket = 2.0 * 1448;

struct RunDemand {
  double packets_per_s = 0;
  double bits_per_s = 0;  // the delayed directions' peak rates, summed
  size_t directions = 0;  // delayed directions (each one a delay line's queue or a netem)
};

// The highest rate a direction is ever given: its own, and any its schedule steps to or
// draws (a trace's changes once loaded).
uint64_t peak_bits_per_s(const DirectionParams& d);

RunDemand estimate_demand(const Plan& plan);
nlohmann::json demand_to_json(const RunDemand& d);

}  // namespace testbed
