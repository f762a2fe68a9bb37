#include "agent/contracts/worker_events.h"

#include <limits>

#include "agent/contracts/message_fields.h"

namespace testbed {
namespace {

// A clock lasting longer than a day is no measurement: the run's own budget is far below.
constexpr double kLongestClockS = 86'400;

// A loss: a number, or null for a diverged model's NaN (JSON has no NaN).
double loss_of(const FieldReader& r) {
  return r.json().at("loss").is_null() ? std::numeric_limits<double>::quiet_NaN()
                                       : r.required<double>("loss");
}

}  // namespace

nlohmann::json to_json(const ClockDone& e) {
  return {{"event", ClockDone::kEvent},
          {"clock", e.clock},
          {"seconds", e.seconds},
          {"compute_s", e.compute_s}};
}

nlohmann::json to_json(const LossEvaluated& e) {
  // nlohmann writes a NaN as null, which is what the reader expects.
  return {{"event", LossEvaluated::kEvent}, {"clock", e.clock}, {"loss", e.loss}};
}

nlohmann::json to_json(const WorkerFinished& e) {
  return {{"event", WorkerFinished::kEvent}, {"clocks", e.iteration_s.size()},
          {"iteration_s", e.iteration_s},    {"started_ns", e.started_ns},
          {"computed_ns", e.computed_ns},    {"samples", e.samples}};
}

nlohmann::json to_json(const ModelEvaluated& e) {
  nlohmann::json j = {{"event", ModelEvaluated::kEvent}};
  if (e.loss) j["loss"] = *e.loss;  // a NaN is written as null
  return j;
}

ClockDone clock_done_from_json(const nlohmann::json& j, uint64_t max_clock) {
  const FieldReader r = FieldReader::named(j, ClockDone::kEvent);
  r.refuse_unknown({"event", "clock", "seconds", "compute_s"});
  ClockDone e;
  e.clock = r.whole("clock", max_clock);
  e.seconds = r.in_range("seconds", r.required<double>("seconds"), 0.0, kLongestClockS);
  e.compute_s = r.in_range("compute_s", r.required<double>("compute_s"), 0.0, e.seconds);
  return e;
}

LossEvaluated loss_evaluated_from_json(const nlohmann::json& j, uint64_t max_clock) {
  const FieldReader r = FieldReader::named(j, LossEvaluated::kEvent);
  r.refuse_unknown({"event", "clock", "loss"});
  LossEvaluated e;
  e.clock = r.whole("clock", max_clock);
  if (!r.json().contains("loss")) throw r.error("loss", "is missing");
  e.loss = loss_of(r);
  return e;
}

WorkerFinished worker_finished_from_json(const nlohmann::json& j, uint64_t max_clock) {
  const FieldReader r = FieldReader::named(j, WorkerFinished::kEvent);
  r.refuse_unknown({"event", "clocks", "iteration_s", "started_ns", "computed_ns", "samples"});
  WorkerFinished e;
  const uint64_t clocks = r.whole("clocks", max_clock);
  e.iteration_s = r.required<std::vector<double>>("iteration_s");
  if (e.iteration_s.size() != clocks)
    throw r.error("iteration_s", "holds " + std::to_string(e.iteration_s.size()) +
                                     " durations for " + std::to_string(clocks) + " clocks");
  for (double s : e.iteration_s) r.in_range("iteration_s", s, 0.0, kLongestClockS);
  // A clock's start and compute stamps: one per clock begun (the last perhaps unfinished,
  // and a clock begun again after a failover counted again), so no count is checked.
  e.started_ns = r.required<std::vector<int64_t>>("started_ns");
  e.computed_ns = r.required<std::vector<int64_t>>("computed_ns");
  e.samples = r.required<uint64_t>("samples");
  return e;
}

ModelEvaluated model_evaluated_from_json(const nlohmann::json& j) {
  const FieldReader r = FieldReader::named(j, ModelEvaluated::kEvent);
  r.refuse_unknown({"event", "loss"});
  ModelEvaluated e;
  if (r.json().contains("loss")) e.loss = loss_of(r);
  return e;
}

void check_worker_event(const nlohmann::json& j, uint64_t max_clock) {
  const auto event = j.find("event");
  if (event == j.end() || !event->is_string()) return;
  if (*event == ClockDone::kEvent) clock_done_from_json(j, max_clock);
  if (*event == LossEvaluated::kEvent) loss_evaluated_from_json(j, max_clock);
  if (*event == WorkerFinished::kEvent) worker_finished_from_json(j, max_clock);
  if (*event == ModelEvaluated::kEvent) model_evaluated_from_json(j);
}

}  // namespace testbed
