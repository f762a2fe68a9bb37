// A profile's `cross_traffic:`: other people's traffic on the lab's WAN, from one node to
// another along the lab's routes, for a while. Real WAN links are shared; a job measured
// on an empty network is measured on a network nobody trains on.
//
//   cross_traffic:
//     - {from: chicago, to: newyork, kind: bulk, flows: 4, start: 10s, stop: 60s}
//     - {from: seattle, to: denver, kind: udp, rate: 20mbit}
//     - {from: houston, to: atlanta, kind: poisson, load: 30%, mean_size: 1MiB}
//
// `bulk`: that many long TCP flows (CUBIC, as the job's), each as fast as the path lets it;
// `udp`: one constant-rate UDP stream (the rate its payload is sent at, as iperf3 counts
// it); `poisson`: TCP flows arriving as a Poisson process, each of a Pareto-distributed
// size (`shape`, default 1.5: a finite mean and a heavy tail; sizes above `max_size`,
// default 1000 x the mean, are cut to it), at a rate of arrivals that makes `load` of the
// path's narrowest rate (at time zero) on average; drawn from `seed` (default: the lab's
// seed and the entry's place in the list). `start` is after the lab's time zero (the
// schedules'), `stop` absent means until `down`. Pure data (read by cross_traffic_parser.h); the
// processes are planned in lab/cross_traffic_plan.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "controller/topology/units.h"

namespace testbed {

struct CrossTraffic {
  enum class Kind { kBulk, kUdp, kPoisson };
  Kind kind = Kind::kBulk;
  size_t from = 0, to = 0;  // indices into Topology::nodes
  int flows = 1;            // bulk: parallel TCP flows
  Rate rate;                // udp: the stream's rate
  // poisson: the load (of the path's narrowest rate), the flows' mean size before the cut,
  // the Pareto shape, the cut, and the seed.
  double load = 0;
  uint64_t mean_size = 0, max_size = 0;
  double shape = 0;
  uint64_t seed = 0;
  int64_t start_us = 0;
  std::optional<int64_t> stop_us;  // unset: until the lab goes down
  int line = 0;                    // where it was written (1-based)
  bool operator==(const CrossTraffic&) const = default;
};

// iperf3 runs at most 128 parallel streams per test (its -P limit).
constexpr int kMaxBulkFlows = 128;
// Each entry's generator listens on a port of its own from this range (lab/cross_traffic_plan),
// which is also what the counters match: 99 entries per lab.
constexpr uint16_t kCrossTrafficFirstPort = 5301;
constexpr uint16_t kCrossTrafficLastPort = 5399;
// The keys of one entry.
inline const std::vector<std::string> kCrossTrafficKeys = {"from",     "to",   "kind",      "flows",
                                                           "rate",     "load", "mean_size", "shape",
                                                           "max_size", "seed", "start",     "stop"};
constexpr double kDefaultParetoShape = 1.5;
constexpr uint64_t kDefaultMaxSizeOverMean = 1000;

const char* kind_name(CrossTraffic::Kind k);  // "bulk", "udp", "poisson"
// The kind a name stands for; nullopt for any other text.
std::optional<CrossTraffic::Kind> kind_from_name(const std::string& name);

}  // namespace testbed
