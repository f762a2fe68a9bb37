// A system's part of synchronous training by all-reduce (round_protocol.h). The core runs
// the clocks, the emulated compute, the evaluations and the all-reduces over the van; a
// system says what each clock does to its models and what, when, it reduces:
//   - every clock's update, summed before the next clock (RR-Sync, Tr-Sync: sum_each_clock.h)
//   - pseudo-gradients every H clocks, an outer step before the next (DiLoCo: diloco/)
//   - one fragment's pseudo-gradients at a time, the outer step applied tau clocks later
//     while the inner steps go on (Streaming DiLoCo: streaming_diloco/)
// The core names no system; a system is a RoundHooks and one line in protocol_registry.cpp.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "agent/contracts/training_setup.h"
#include "agent/jobs/job.h"
#include "agent/transport/value_codec.h"

namespace testbed {

// Values to all-reduce, begun when a clock's compute is over. The sum goes back to the
// system (RoundHooks::reduced) before clock `apply_before` starts: the next clock for a
// blocking round, later for one that overlaps the clocks between. A system has at most
// one reduction under way.
struct Reduction {
  std::vector<float> values;
  uint64_t apply_before = 0;
  bool last = false;  // the run's last: no reduction follows it
};

class RoundHooks {
 public:
  virtual ~RoundHooks() = default;
  // The system's own settings (TrainingSetup::policy); throws ContractError naming a field.
  virtual void configure(const TrainingSetup& setup) = 0;
  // The reductions' values on the wire (agent/transport/value_codec.h): fp32 unless a
  // system's settings say otherwise.
  virtual const ValueCodec* encoding() const { return nullptr; }
  // A worker's start: the job's initial model, and how many workers reduce.
  virtual void start(std::vector<float> initial, int workers) = 0;
  // The model clock `clock`'s update is computed on.
  virtual const std::vector<float>& working() const = 0;
  // The clock's update, computed as the clock starts.
  virtual void step(uint64_t clock, const SparseUpdate& update) = 0;
  // The clock's compute is over: what to reduce now, if anything.
  virtual std::optional<Reduction> after_compute(uint64_t clock, bool last) = 0;
  // The reduction's values summed over every worker.
  virtual void reduced(const std::vector<float>& sum) = 0;
  // The model the held-out loss is evaluated on, and the report's model.
  virtual const std::vector<float>& evaluated() const = 0;
  // The system's section of the final report (`dropped`: the all-reduce's refused frames).
  virtual void report(nlohmann::json& stats, uint64_t dropped) const = 0;
  // Elastic membership (elastic_reduce.h): the controller names each reduction's members,
  // and a sum is applied once it commits it. Off unless a system's settings turn it on.
  virtual bool elastic() const { return false; }
  // The next sum's contributors, when membership changes (an average's divisor).
  virtual void members_changed(int /*workers*/) {}
  // Whether node `node` starts outside the run, to join it later.
  virtual bool away(int /*node*/) const { return false; }
  // What a joiner needs of a member to take the next round with the others (the shared
  // model and the outer optimizer's state), and its taking it.
  virtual std::vector<float> shared_state() const { return {}; }
  virtual void adopt(const std::vector<float>& /*state*/) {}
};

}  // namespace testbed
