// `testbed _traffic`: runs one cross-traffic generator (iperf3's client, lab/cross_traffic_plan.h)
// from its start to its stop on the lab's clock. `up` records this process, not the
// generator: the generator is its child, ended with it by PR_SET_PDEATHSIG even when `clean`
// kills this process outright, so nothing of the lab outlives its records.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace testbed {

struct TrafficClientTimes {
  double start_unix_s = 0;
  std::optional<double> stop_unix_s;  // unset: until SIGTERM (the lab goes down)
};

// Waits for the start, runs `argv`, ends it at the stop or on SIGTERM/SIGINT. A generator
// that fails within its first seconds (its server not yet listening) is started again, up
// to a few times. Returns 0 when stopped, else the generator's failure as an exit status.
int run_traffic_client(const TrafficClientTimes& times, const std::vector<std::string>& argv);

}  // namespace testbed
