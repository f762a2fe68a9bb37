// The cross traffic's processes and counters (topology/cross_traffic.h), planned from the
// topology and its routes. Pure, so `testbed plan` shows them and tests need no root.
//
// A bulk or udp entry runs iperf3 (Debian's iperf3, the generator every WAN paper reaches
// for: TCP with the host's own congestion control for bulk flows, a paced UDP stream at a
// set rate) as a server in the receiving node and a client in the sending one, on a port of
// its own. iperf3 runs one test at a time and D-ITG draws packets, not flows, so a poisson
// entry runs the testbed's own flow generator and sink (runs/flow_generator.h). The
// counters of every node count what crosses each link on those ports, at every hop.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "controller/lab/route_book.h"
#include "controller/topology/topology.h"

namespace testbed {

struct PlannedTraffic {
  size_t index = 0;  // in the profile's list
  CrossTraffic::Kind kind = CrossTraffic::Kind::kBulk;
  std::string from, to;        // node names
  std::string from_ns, to_ns;  // their namespaces
  std::string to_address;      // the receiver's address (its loopback's, as routes reach it)
  int flows = 1;
  // udp: the stream's rate; poisson: the mean load, its `load` of the path's narrowest rate.
  uint64_t rate_bits_per_s = 0;
  uint64_t mean_size = 0, max_size = 0;  // poisson
  double shape = 0;
  uint64_t seed = 0;
  int64_t start_us = 0;
  std::optional<int64_t> stop_us;
  uint16_t port = 0;
  // The link directions it crosses, "from>to" per hop, along the lab's routes at time zero.
  std::vector<std::string> path;
  bool operator==(const PlannedTraffic&) const = default;
};

// One per entry of `topo.cross_traffic`; `nodes` gives each node's namespace and address.
std::vector<PlannedTraffic> plan_cross_traffic(const Topology& topo,
                                               const std::vector<std::string>& namespaces,
                                               const std::vector<std::string>& addresses,
                                               const RouteBook& routes);

// The generators' command lines: the server (in `to_ns`, until the lab goes down) and the
// client (in `from_ns`, from start to stop, run by `testbed _traffic`); `testbed` is the
// path of the testbed's own program, which a poisson entry runs.
std::vector<std::string> traffic_server_argv(const PlannedTraffic& t, const std::string& testbed);
std::vector<std::string> traffic_client_argv(const PlannedTraffic& t, const std::string& testbed);

nlohmann::json traffic_to_json(const PlannedTraffic& t);
// Throws std::invalid_argument naming the field that is missing or wrong.
PlannedTraffic traffic_from_json(const nlohmann::json& j);

}  // namespace testbed
