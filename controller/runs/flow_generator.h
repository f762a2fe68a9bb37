// The poisson kind of cross traffic (topology/cross_traffic.h): TCP flows arriving as a
// Poisson process, each of a Pareto size cut at a maximum, sent to a sink that reads and
// drops them. Neither of Debian's generators does this: iperf3 runs one test at a time,
// and D-ITG draws packets' sizes and gaps, not flows'.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace testbed {

// The draws, from one seed: the same seed gives the same flows, whatever the network does.
class FlowDraws {
 public:
  // `load_bits_per_s`: the mean load; flows arrive at load / (8 x the mean cut size).
  FlowDraws(uint64_t load_bits_per_s, uint64_t mean_size, uint64_t max_size, double shape,
            uint64_t seed);
  double next_gap_s();                           // until the next flow's arrival
  uint64_t next_size();                          // bytes, at least 1 and at most max_size
  double cut_mean() const { return cut_mean_; }  // E[min(X, max)], bytes
  double arrivals_per_s() const { return arrivals_per_s_; }

 private:
  std::mt19937_64 rng_;
  double scale_, shape_, max_;
  double cut_mean_, arrivals_per_s_;
};

// The Pareto scale (its smallest size) whose mean is `mean`, and the mean of min(X, max).
double pareto_scale(double mean, double shape);
double cut_pareto_mean(double scale, double shape, double max);

struct FlowCounts {
  uint64_t started = 0, finished = 0, failed = 0, skipped = 0, bytes = 0;
};

// `testbed _flows send ADDR PORT LOAD MEAN MAX SHAPE SEED`: until SIGTERM or SIGINT.
// Flows beyond kMaxOpenFlows at once are skipped (counted): the load was more than the
// path carries. A line of counts goes to stderr every 10 s and at the end.
int run_flow_sender(const std::string& address, uint16_t port, FlowDraws draws);
// `testbed _flows sink ADDR PORT`: accepts every flow and reads it to its end.
int run_flow_sink(const std::string& address, uint16_t port);

// Open flows at once, within the 1024 descriptors a process has by default.
constexpr size_t kMaxOpenFlows = 900;

}  // namespace testbed
