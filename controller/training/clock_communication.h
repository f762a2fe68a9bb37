// A synchronous run's per-iteration communication time (MLfabric Sec. 7.2 compares MLfabric-S
// and Tr-Sync by it), from the clocks the workers recorded: for clock c, from the moment
// the last worker's update of c was computed to the moment the last worker held the model
// of c+1. It is the part of an iteration that no computation explains: what the all-reduce
// or the server's pushes and pulls still took once every update was ready. Work done while
// a straggler still computed (a subtree summed, an early update aggregated) shortens it.
// All stamps are CLOCK_MONOTONIC of one host, so the workers' stamps compare. Pure.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace testbed {

struct WorkerClockStamps {
  std::vector<int64_t> started_ns;   // per clock: when its parameters were complete
  std::vector<int64_t> computed_ns;  // per clock: when its update was computed
};

// Per clock that every worker both computed and finished, its communication time (s).
std::vector<double> clock_communication_s(const std::vector<WorkerClockStamps>& workers);

// Every worker clock's compute (s): its parameters complete to its update computed, the
// emulated compute (waited or burnt, docs/compute.md) and the real update together.
std::vector<double> clock_compute_s(const std::vector<WorkerClockStamps>& workers);

// {per_clock_s, mean_s, median_s, p90_s, clocks} of those times; clocks 0 when none.
nlohmann::json communication_summary(const std::vector<double>& per_clock_s);

// A synchronous server's run split at the moment each clock took effect there
// (`applied_ns`, per clock): the updates' way in (last update computed to applied) and the
// model's way out (applied to the last worker holding it), per clock both had.
struct ServerLegs {
  std::vector<double> to_server_s, from_server_s;
};
ServerLegs server_legs(const std::vector<WorkerClockStamps>& workers,
                       const std::vector<int64_t>& applied_ns);
// Adds the legs' means to a communication_summary(): to_server_mean_s, from_server_mean_s.
void add_server_legs(const ServerLegs& legs, nlohmann::json& communication);

}  // namespace testbed
