#include "agent/protocols/allreduce/allreduce_protocol.h"

#include <algorithm>
#include <stdexcept>

#include "agent/contracts/model_report.h"
#include "agent/contracts/worker_events.h"
#include "agent/jobs/local_workers.h"
#include "agent/protocols/job_setup.h"
#include "agent/runtime/van_counters.h"
#include "agent/transport/wire.h"

namespace testbed {
void AllReduceProtocol::setup(const nlohmann::json& cmd) {
  const TrainingSetup s = training_setup_from_json(cmd);
  algorithm_ = s.algorithm;
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
  const JobConfig config = job_config(s.job, static_cast<int>(workers_.size()));
  job_ = make_local_workers(config, std::max(rank_, 0), 1);
  const size_t parameters = job_->parameters();
  // Every node checks the name, so a wrong one fails the setup, not the first clock.
  channel_ =
      std::make_unique<ReduceChannel>(link_, algorithm_, workers_, std::max(rank_, 0), parameters);
  if (rank_ >= 0) {
    w_.resize(parameters);
    for (size_t k = 0; k < parameters; ++k) w_[k] = job_->initial_value(static_cast<uint32_t>(k));
  } else {
    job_.reset();
    channel_.reset();
  }
  link_.reply(to_json(NodeReady{parameters}));
}

void AllReduceProtocol::command(const std::string& verb, const nlohmann::json&) {
  if (verb == "start") {
    if (rank_ < 0 || phase_ != Phase::kIdle) return;
    next_eval_ = Clock::now();
    start_clock();
  } else if (verb == "stop") {
    // Every worker is told at once; one that waited for the end of its clock could wait
    // for a neighbour that has stopped.
    stop_requested_ = true;
    if (phase_ == Phase::kComputing || phase_ == Phase::kReducing) finish();
  } else if (verb == "evaluate") {
    if (rank_ < 0) return link_.reply(to_json(ModelEvaluated{}));
    link_.reply(to_json(ModelEvaluated{job_->held_out_loss(w_)}));
  } else if (verb == "stats") {
    nlohmann::json s = report_with_counters(kStatsEvent, link_.van());
    if (rank_ == 0 && w_.size() <= kReportValuesUpTo) write_ring_model(s, w_);
    link_.reply(s);
  } else {
    throw std::runtime_error("all-reduce protocol: unknown command " + verb);
  }
}

void AllReduceProtocol::start_clock() {
  const auto now = Clock::now();
  if (clock_ == 0 || clock_ == static_cast<uint64_t>(iterations_) || now >= next_eval_) {
    next_eval_ = now + eval_interval_;
    log_.evaluated(clock_, job_->held_out_loss(w_));
  }
  log_.started(clock_, now);
  if (stop_requested_ || clock_ >= static_cast<uint64_t>(iterations_)) return finish();
  phase_ = Phase::kComputing;
  emulated_.start();
  const SparseUpdate u = job_->update(clock_, w_);
  log_.add_samples(job_->samples_per_update());
  update_.assign(w_.size(), 0.0f);
  if (u.keys.empty()) {
    update_ = u.values;
  } else {
    for (size_t i = 0; i < u.keys.size(); ++i) update_[u.keys[i]] += u.values[i];
  }
  emulated_.set_length(local_compute_ms(compute_, seed_, self_, 1, clock_, slowdown_, stragglers_));
}

void AllReduceProtocol::message(Received r) {
  if (r.header.kind != WireKind::kRing || phase_ == Phase::kFinished || !channel_) return;
  if (channel_->take(std::move(r))) clock_done();
}

void AllReduceProtocol::clock_done() {
  const auto& sum = channel_->sum();
  for (size_t k = 0; k < w_.size(); ++k) w_[k] += sum[k];
  ++clock_;
  start_clock();
}

void AllReduceProtocol::tick() {
  if (phase_ != Phase::kComputing || !emulated_.finished()) return;
  log_.computed(clock_);
  phase_ = Phase::kReducing;
  // One worker, or every message of the clock came while this one computed: it is over.
  if (channel_->begin(clock_, std::move(update_))) clock_done();
}

std::chrono::milliseconds AllReduceProtocol::timeout() const {
  if (phase_ != Phase::kComputing) return std::chrono::milliseconds(-1);
  return emulated_.timeout();
}

void AllReduceProtocol::finish() {
  phase_ = Phase::kFinished;
  log_.finished();
}

}  // namespace testbed
