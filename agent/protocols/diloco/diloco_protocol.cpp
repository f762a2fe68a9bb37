#include "agent/protocols/diloco/diloco_protocol.h"

#include <algorithm>
#include <stdexcept>

#include "agent/contracts/diloco_report.h"
#include "agent/contracts/model_report.h"
#include "agent/contracts/training_setup.h"
#include "agent/contracts/worker_events.h"
#include "agent/jobs/local_workers.h"
#include "agent/protocols/job_setup.h"
#include "agent/runtime/van_counters.h"
#include "agent/transport/wire.h"

namespace testbed {
void DilocoProtocol::setup(const nlohmann::json& cmd) {
  const TrainingSetup s = training_setup_from_json(cmd);
  policy_ = diloco_policy_from_json(s.policy);
  algorithm_ = s.algorithm.empty() ? "ring" : s.algorithm;
  workers_ = s.workers;
  const auto it = std::find(workers_.begin(), workers_.end(), self_);
  rank_ = it == workers_.end() ? -1 : static_cast<int>(it - workers_.begin());
  iterations_ = s.iterations;
  seed_ = s.seed;
  compute_ = {s.compute.min_ms, s.compute.max_ms};
  stragglers_ = {s.compute.straggler_share, s.compute.straggler_factor};
  emulated_.set_on_cpu(s.compute.on_cpu);
  slowdown_ = s.slowdown(self_);
  eval_interval_ = std::chrono::milliseconds(s.eval_interval_ms);
  const int workers = static_cast<int>(workers_.size());
  job_ = make_local_workers(job_config(s.job, workers), std::max(rank_, 0), 1);
  const size_t parameters = job_->parameters();
  channel_ =
      std::make_unique<ReduceChannel>(link_, algorithm_, workers_, std::max(rank_, 0), parameters);
  if (rank_ >= 0) {
    theta_.resize(parameters);
    for (size_t k = 0; k < parameters; ++k)
      theta_[k] = job_->initial_value(static_cast<uint32_t>(k));
    local_ = theta_;
    inner_ = make_inner_optimizer(policy_, parameters, workers);
    outer_ = std::make_unique<NesterovOuter>(policy_.outer_lr, policy_.outer_momentum, parameters);
  } else {
    job_.reset();
    channel_.reset();
  }
  link_.reply(to_json(NodeReady{parameters}));
}

void DilocoProtocol::command(const std::string& verb, const nlohmann::json&) {
  if (verb == "start") {
    if (rank_ < 0 || phase_ != Phase::kIdle) return;
    next_eval_ = Clock::now();
    start_clock();
  } else if (verb == "stop") {
    stop_requested_ = true;
    if (phase_ == Phase::kComputing || phase_ == Phase::kReducing) finish();
  } else if (verb == "evaluate") {
    if (rank_ < 0) return link_.reply(to_json(ModelEvaluated{}));
    link_.reply(to_json(ModelEvaluated{job_->held_out_loss(theta_)}));
  } else if (verb == "stats") {
    nlohmann::json s = report_with_counters(kStatsEvent, link_.van());
    if (rank_ >= 0) write_diloco_section(s, {round_, channel_->dropped()});
    if (rank_ == 0 && theta_.size() <= kReportValuesUpTo) write_ring_model(s, theta_);
    link_.reply(s);
  } else {
    throw std::runtime_error("diloco protocol: unknown command " + verb);
  }
}

void DilocoProtocol::start_clock() {
  const auto now = Clock::now();
  if (clock_ == 0 || clock_ == static_cast<uint64_t>(iterations_) || now >= next_eval_) {
    next_eval_ = now + eval_interval_;
    log_.evaluated(clock_, job_->held_out_loss(theta_));
  }
  log_.started(clock_, now);
  if (stop_requested_ || clock_ >= static_cast<uint64_t>(iterations_)) return finish();
  phase_ = Phase::kComputing;
  emulated_.start();
  inner_->step(local_, job_->update(clock_, local_));
  log_.add_samples(job_->samples_per_update());
  emulated_.set_length(local_compute_ms(compute_, seed_, self_, 1, clock_, slowdown_, stragglers_));
}

void DilocoProtocol::tick() {
  if (phase_ != Phase::kComputing || !emulated_.finished()) return;
  log_.computed(clock_);
  ++steps_in_round_;
  const bool last = clock_ + 1 >= static_cast<uint64_t>(iterations_);
  if (steps_in_round_ < policy_.inner_steps && !last) {
    ++clock_;
    return start_clock();
  }
  phase_ = Phase::kReducing;
  // One data center, or every message of the round came while this one computed.
  if (channel_->begin(round_, pseudo_gradient(theta_, local_))) round_done();
}

void DilocoProtocol::message(Received r) {
  if (r.header.kind != WireKind::kRing || phase_ == Phase::kFinished || !channel_) return;
  if (channel_->take(std::move(r))) round_done();
}

void DilocoProtocol::round_done() {
  outer_->step(theta_, channel_->sum(), static_cast<int>(workers_.size()));
  local_ = theta_;  // the next round starts from the shared model; the inner state stays
  ++round_;
  steps_in_round_ = 0;
  ++clock_;
  start_clock();
}

std::chrono::milliseconds DilocoProtocol::timeout() const {
  if (phase_ != Phase::kComputing) return std::chrono::milliseconds(-1);
  return emulated_.timeout();
}

void DilocoProtocol::finish() {
  phase_ = Phase::kFinished;
  log_.finished();
}

}  // namespace testbed
