// What a placement decided and why, for `testbed placement`, `testbed plan` and the
// summary of `testbed train --json`: the LP bound and T_v of every candidate server, the
// chosen one, each flow's path and rate, and the choices made where the paper is silent.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

#include "controller/placement/apsp.h"

namespace testbed::placement {

// TCP's payload per Ethernet frame (1448 of 1514 bytes: 1500-byte MTU less 20 IP, 20 TCP
// and 12 timestamp-option bytes; plus the 14-byte Ethernet header the shaper counts): the paced
// mode sends payload at b_f times this, so that the frames fill b_f of the link exactly.
constexpr double kTcpGoodput = 1448.0 / 1514.0;

// Which node serves: "apsp" (v*), "most-connected", "random" (drawn from the seed), or a
// node's name (fixed).
int chosen_server(const PlacementGraph& g, const PlacementResult& r, const std::string& how,
                  uint64_t seed);

nlohmann::json placement_report(const PlacementGraph& g, const PlacementResult& r, int server,
                                double model_bytes, const PlacementOptions& options);

// The report for people: candidates as a table, then the chosen server's flows.
void print_placement(const nlohmann::json& report, std::ostream& out);

// The decisions this implementation takes where the paper is silent (also in docs/apsp.md).
const std::vector<std::string>& placement_choices();

}  // namespace testbed::placement
