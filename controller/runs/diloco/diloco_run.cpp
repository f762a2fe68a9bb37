#include "controller/runs/diloco/diloco_run.h"

#include <algorithm>
#include <limits>

#include "agent/contracts/diloco/diloco_report.h"
#include "agent/contracts/node_replies.h"
#include "agent/transport/value_codec.h"

namespace testbed {

// Made for every all-reduce run, as DiLoCo's is one: its summary is written only where the
// data centers' reports carry DiLoCo's section (the ring's plain all-reduces carry none).
std::unique_ptr<PsRunPolicy> make_diloco_run(PsRun& run) {
  if (run.traits().kind != StrategyKind::kAllReduce) return nullptr;
  return std::make_unique<DilocoRun>(run);
}

DilocoRun::DilocoRun(PsRun& run) : run_(run) {
  const nlohmann::json& policy = run_.options().policy;
  if (policy.is_object() && policy.value("elastic", "off") == "on") elastic_.emplace(run_);
}

void DilocoRun::setup(TrainingSetup& setup, const JobConfig&, size_t) {
  if (elastic_) elastic_->setup(setup);
}

bool DilocoRun::awaited(size_t node) const {
  return !elastic_ || elastic_->awaited(node);
}

void DilocoRun::started(double start_unix_s) {
  if (elastic_) elastic_->started(start_unix_s);
}

bool DilocoRun::event(size_t node, const nlohmann::json& e, double t) {
  return elastic_ && elastic_->event(node, e, t);
}

double DilocoRun::drive(double now_s) {
  return elastic_ ? elastic_->drive(now_s) : kNever;
}

bool DilocoRun::node_died(size_t node, double now_s) {
  return elastic_ && elastic_->node_died(node, now_s);
}

// A member at the end holds the shared model; one that left or crashed does not.
bool DilocoRun::evaluates(size_t node) const {
  return !elastic_ || elastic_->in(node);
}

// The reports arrived checked (agent_reply.h): read by their contract. Every data center
// ends on the same outer step unless one died or was cut off mid-run: the least is the
// run's, and each one's is beside it.
void DilocoRun::summary(nlohmann::json& s) const {
  const std::vector<nlohmann::json>& stats = run_.node_stats();
  nlohmann::json per_dc = nlohmann::json::object();
  uint64_t least = std::numeric_limits<uint64_t>::max(), dropped = 0;
  for (size_t n = 0; n < stats.size(); ++n) {
    if (!is_final_report(stats[n])) continue;
    const auto d = diloco_section_from(stats[n]);
    if (!d) continue;  // a node with no worker
    per_dc[run_.names()[n]] = d->outer_steps;
    least = std::min(least, d->outer_steps);
    dropped += d->dropped;
  }
  if (per_dc.empty()) return;
  s["diloco"] = {
      {"outer_steps", least}, {"outer_steps_per_data_center", per_dc}, {"frames_dropped", dropped}};
  // The pseudo-gradients' encoding, and what of it is the paper's and what ours.
  const nlohmann::json& policy = run_.options().policy;
  if (policy.is_object() && policy.contains("wire") && policy["wire"].is_string())
    if (const ValueCodec* c = find_value_codec(policy["wire"].get<std::string>()))
      s["diloco"]["wire"] = {{"encoding", c->name}, {"method", c->method}};
  if (elastic_) elastic_->summary(s);
}

}  // namespace testbed
