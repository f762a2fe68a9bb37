// The workers' progress contract (agent/contracts/worker_events.h): what the agent writes
// the controller reads back field for field, a diverged loss travels as null and comes back
// NaN, and a missing, mistyped, out-of-range or unknown field is refused with its name, by
// the reader and by the controller's check of agents' replies (dropped, not thrown).
#include "agent/contracts/worker_events.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "agent/contracts/message_fields.h"
#include "controller/training/agent_reply.h"

namespace testbed {
namespace {

constexpr uint64_t kMaxClock = 100;

// The refusal's text, which names the field.
std::string refusal(const nlohmann::json& j) {
  try {
    check_worker_event(j, kMaxClock);
  } catch (const ContractError& e) {
    return e.what();
  }
  return "";
}

TEST(WorkerEvents, EachRoundTripsThroughItsJson) {
  const ClockDone c = clock_done_from_json(to_json(ClockDone{7, 0.25, 0.2}), kMaxClock);
  EXPECT_EQ(c.clock, 7u);
  EXPECT_DOUBLE_EQ(c.seconds, 0.25);
  EXPECT_DOUBLE_EQ(c.compute_s, 0.2);
  const LossEvaluated l = loss_evaluated_from_json(to_json(LossEvaluated{3, 1.5}), kMaxClock);
  EXPECT_EQ(l.clock, 3u);
  EXPECT_DOUBLE_EQ(l.loss, 1.5);
  const WorkerFinished in{{0.1, 0.2}, {10, 20, 30}, {15, 25}, 64};
  const WorkerFinished out = worker_finished_from_json(to_json(in), kMaxClock);
  EXPECT_EQ(out.iteration_s, in.iteration_s);
  EXPECT_EQ(out.started_ns, in.started_ns);
  EXPECT_EQ(out.computed_ns, in.computed_ns);
  EXPECT_EQ(out.samples, 64u);
  // The wire is what it was before the contract: the controller's older readers agree.
  EXPECT_EQ(to_json(in)["clocks"], 2);
  EXPECT_EQ(to_json(ClockDone{7, 0.25})["event"], "clock");
}

TEST(WorkerEvents, ADivergedLossTravelsAsNullAndComesBackNaN) {
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  const nlohmann::json j = nlohmann::json::parse(to_json(LossEvaluated{2, nan}).dump());
  EXPECT_TRUE(j["loss"].is_null());
  EXPECT_TRUE(std::isnan(loss_evaluated_from_json(j, kMaxClock).loss));
  EXPECT_TRUE(decode_agent_reply("0", j.dump(), 1, kMaxClock));
}

// The final evaluation: a loss, none (a node that holds no model), or a diverged NaN.
TEST(WorkerEvents, TheFinalEvaluationCarriesALossNoneOrNaN) {
  EXPECT_EQ(model_evaluated_from_json(to_json(ModelEvaluated{0.75})).loss, 0.75);
  EXPECT_FALSE(to_json(ModelEvaluated{}).contains("loss"));
  EXPECT_EQ(model_evaluated_from_json(to_json(ModelEvaluated{})).loss, std::nullopt);
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  const auto wire = nlohmann::json::parse(to_json(ModelEvaluated{nan}).dump());
  EXPECT_TRUE(std::isnan(*model_evaluated_from_json(wire).loss));
  EXPECT_NE(refusal({{"event", "evaluated"}, {"loss", "low"}}).find("evaluated.loss has the wrong"),
            std::string::npos);
  EXPECT_NE(refusal({{"event", "evaluated"}, {"acc", 1}}).find("evaluated.acc is not a field"),
            std::string::npos);
}

TEST(WorkerEvents, AMalformedEventIsRefusedByName) {
  const nlohmann::json clock = to_json(ClockDone{1, 0.5});
  const nlohmann::json finished = to_json(WorkerFinished{{0.1}, {1}, {1}, 8});
  auto without = [](nlohmann::json j, const char* f) {
    j.erase(f);
    return j;
  };
  auto with = [](nlohmann::json j, const char* f, nlohmann::json v) {
    j[f] = std::move(v);
    return j;
  };
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {without(clock, "seconds"), "clock.seconds is missing"},
      {with(clock, "seconds", "fast"), "clock.seconds has the wrong type"},
      {with(clock, "seconds", -1), "clock.seconds is"},
      {without(clock, "compute_s"), "clock.compute_s is missing"},
      // A clock's compute is part of it: more than its whole is no measurement.
      {with(clock, "compute_s", 0.75), "clock.compute_s is"},
      {with(clock, "clock", -1), "clock.clock holds a value that is no whole number >= 0"},
      {with(clock, "clock", kMaxClock + 1), "clock.clock is 101, outside"},
      {with(clock, "extra", 1), "clock.extra is not a field"},
      {without(to_json(LossEvaluated{1, 1}), "loss"), "eval.loss is missing"},
      {with(finished, "clocks", 2), "finished.iteration_s holds 1 durations for 2 clocks"},
      {with(finished, "iteration_s", {-0.1}), "finished.iteration_s is"},
      {without(finished, "samples"), "finished.samples is missing"},
      {with(finished, "started_ns", "x"), "finished.started_ns has the wrong type"},
  };
  for (const auto& [j, expected] : cases) {
    EXPECT_NE(refusal(j).find(expected), std::string::npos) << j.dump() << " -> " << refusal(j);
    EXPECT_FALSE(decode_agent_reply("0", j.dump(), 1, kMaxClock)) << j.dump();
  }
  // Other events are left to their own readers.
  EXPECT_EQ(refusal({{"event", "stats"}, {"anything", 1}}), "");
}

}  // namespace
}  // namespace testbed
