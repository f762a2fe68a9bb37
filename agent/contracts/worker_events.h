// What every worker tells the controller as it trains, whatever the system (the parameter
// server and its variants, Gaia, DiLoCo, the all-reduce): a clock done, a held-out loss
// evaluated, the run finished, the final model evaluated. One struct each, written by the agent's
// WorkerClockLog (agent/protocols/worker_clock_log.h) and read by the controller's session and its
// check of agents' replies; neither end names these fields elsewhere.
//
// A loss is NaN when the model diverged: JSON has no NaN, so it travels as null and is read
// back as NaN. Everything else missing, of the wrong type, out of range or unknown is
// refused with its name (a ContractError): the controller drops such a reply and counts it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace testbed {

// A clock ended: how long it took, from its parameters being complete to the next's, and
// how much of that was its compute (from its start to its update computed; the rest waited
// on the network). The controller counts the compute as it comes, so a dashboard reads each
// worker's compute utilization over time (testbed_worker_compute_seconds_total).
struct ClockDone {
  static constexpr const char* kEvent = "clock";
  uint64_t clock = 0;
  double seconds = 0;
  double compute_s = 0;  // at most `seconds`
};

// The held-out loss on the values clock `clock` reads.
struct LossEvaluated {
  static constexpr const char* kEvent = "eval";
  uint64_t clock = 0;
  double loss = 0;  // NaN: diverged
};

// The worker's whole record, once: each clock's duration, when its parameters were
// complete and when its update was computed (monotonic ns), and the samples it trained on.
struct WorkerFinished {
  static constexpr const char* kEvent = "finished";
  std::vector<double> iteration_s;
  std::vector<int64_t> started_ns;
  std::vector<int64_t> computed_ns;
  uint64_t samples = 0;
};

// The answer to "evaluate" at the run's end: the held-out loss of the model the node holds;
// none for a node that holds no model (a server only).
struct ModelEvaluated {
  static constexpr const char* kEvent = "evaluated";
  std::optional<double> loss;  // NaN: diverged
};

nlohmann::json to_json(const ClockDone& e);
nlohmann::json to_json(const LossEvaluated& e);
nlohmann::json to_json(const WorkerFinished& e);
nlohmann::json to_json(const ModelEvaluated& e);

// Each throws ContractError naming the field; `max_clock` bounds a clock (the run's
// iterations and a margin: what no honest worker exceeds).
ClockDone clock_done_from_json(const nlohmann::json& j, uint64_t max_clock);
LossEvaluated loss_evaluated_from_json(const nlohmann::json& j, uint64_t max_clock);
WorkerFinished worker_finished_from_json(const nlohmann::json& j, uint64_t max_clock);
ModelEvaluated model_evaluated_from_json(const nlohmann::json& j);

// The check of a reply whose "event" is one of these four: throws ContractError when it
// is malformed; any other event is left to its own reader.
void check_worker_event(const nlohmann::json& j, uint64_t max_clock);

}  // namespace testbed
