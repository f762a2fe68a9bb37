// The star MLfabric's unit tests plan over: 4 workers behind a core; worker w's uplink is
// link w, the core's link down to worker w is link kDown + w, the server's downlink is link
// kServer and the replica's kReplica. 1 MB takes 80 ms at 100 Mbit/s.
#pragma once

#include <map>

#include "controller/training/mlfabric/aggregation.h"

namespace testbed::mlfabric_star {

constexpr double kMbit = 1e6;
constexpr double kMB = 1e6;
constexpr size_t kWorkers = 4, kDown = 10, kServer = 100, kReplica = 200;
constexpr double kUpdateS = 0.08;

// Every worker's path to `sink` (kServer or kReplica) and to each other worker's node.
inline AggregationPaths paths_to(size_t sink) {
  AggregationPaths p;
  for (size_t w = 0; w < kWorkers; ++w) {
    p.to_server.push_back({w, sink});
    p.between.emplace_back();
    for (size_t a = 0; a < kWorkers; ++a)
      p.between.back().push_back(a == w ? LinkPath{} : LinkPath{w, kDown + a});
  }
  return p;
}

// 100 Mbit/s on every worker's links; the server's and the replica's as given.
inline std::map<size_t, double> star_rates(double server_mbit, double replica_mbit) {
  std::map<size_t, double> rates{{kServer, server_mbit * kMbit}, {kReplica, replica_mbit * kMbit}};
  for (size_t w = 0; w < kWorkers; ++w) rates[w] = rates[kDown + w] = 100 * kMbit;
  return rates;
}

}  // namespace testbed::mlfabric_star
