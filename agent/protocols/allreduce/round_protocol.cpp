#include "agent/protocols/allreduce/round_protocol.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "agent/contracts/model_report.h"
#include "agent/contracts/worker_events.h"
#include "agent/jobs/local_workers.h"
#include "agent/protocols/job_setup.h"
#include "agent/runtime/van_counters.h"
#include "agent/transport/wire.h"

namespace testbed {

void RoundProtocol::setup(const nlohmann::json& cmd) {
  const TrainingSetup s = training_setup_from_json(cmd);
  hooks_->configure(s);
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
  // Every node checks the algorithm's name, so a wrong one fails the setup, not a clock.
  const std::string algorithm = s.algorithm.empty() ? "ring" : s.algorithm;
  channel_ = std::make_unique<ReduceChannel>(link_, algorithm, workers_, std::max(rank_, 0),
                                             parameters, hooks_->encoding());
  nodes_ = s.van.endpoints.size();
  if (hooks_->elastic()) {
    channel_.reset();
    elastic_ =
        std::make_unique<ElasticReduce>(link_, algorithm, nodes_, parameters, hooks_->encoding());
  }
  if (rank_ >= 0) {
    std::vector<float> initial(parameters);
    for (size_t k = 0; k < parameters; ++k)
      initial[k] = job_->initial_value(static_cast<uint32_t>(k));
    hooks_->start(std::move(initial), workers);
  } else {
    job_.reset();
    channel_.reset();
    elastic_.reset();
  }
  link_.reply(to_json(NodeReady{parameters}));
}

void RoundProtocol::command(const std::string& verb, const nlohmann::json& cmd) {
  if (elastic_command(verb, cmd)) return;
  if (verb == "start") {
    if (rank_ < 0 || phase_ != Phase::kIdle) return;
    if (elastic_ && hooks_->away(self_)) {
      phase_ = Phase::kAway;  // until a member sends it the model
      return;
    }
    next_eval_ = Clock::now();
    start_clock();
  } else if (verb == "stop") {
    // Every worker is told at once; one that waited for the end of its clock could wait
    // for a neighbour that has stopped.
    stop_requested_ = true;
    if (phase_ == Phase::kComputing || phase_ == Phase::kWaiting || phase_ == Phase::kAway)
      finish();
  } else if (verb == "evaluate") {
    if (rank_ < 0) return link_.reply(to_json(ModelEvaluated{}));
    link_.reply(to_json(ModelEvaluated{job_->held_out_loss(hooks_->evaluated())}));
  } else if (verb == "stats") {
    nlohmann::json s = report_with_counters(kStatsEvent, link_.van());
    if (rank_ >= 0) hooks_->report(s, elastic_ ? elastic_->dropped() : channel_->dropped());
    if (rank_ == 0 && hooks_->evaluated().size() <= kReportValuesUpTo)
      write_ring_model(s, hooks_->evaluated());
    link_.reply(s);
  } else {
    throw std::runtime_error(name_ + " protocol: unknown command " + verb);
  }
}

void RoundProtocol::start_clock() {
  const bool end = stop_requested_ || clock_ >= static_cast<uint64_t>(iterations_);
  if (pending_ && (end || clock_ >= pending_->apply_before)) {
    if (!pending_->done) {
      phase_ = Phase::kWaiting;
      return;
    }
    pending_.reset();
    hooks_->reduced(reduction_sum());
    for (int to : std::exchange(deferred_sends_, {})) send_model(to);
  }
  const auto now = Clock::now();
  if (clock_ == 0 || clock_ == static_cast<uint64_t>(iterations_) || now >= next_eval_) {
    next_eval_ = now + eval_interval_;
    log_.evaluated(clock_, job_->held_out_loss(hooks_->evaluated()));
  }
  log_.started(clock_, now);
  if (end) return finish();
  phase_ = Phase::kComputing;
  emulated_.start();
  hooks_->step(clock_, job_->update(clock_, hooks_->working()));
  log_.add_samples(job_->samples_per_update());
  emulated_.set_length(local_compute_ms(compute_, seed_, self_, 1, clock_, slowdown_, stragglers_));
}

void RoundProtocol::tick() {
  if (phase_ != Phase::kComputing || !emulated_.finished()) return;
  log_.computed(clock_);
  const bool last = clock_ + 1 >= static_cast<uint64_t>(iterations_);
  if (std::optional<Reduction> r = hooks_->after_compute(clock_, last)) {
    if (pending_) throw std::logic_error(name_ + ": a reduction begun over one not applied");
    if (elastic_) {
      // Held until the controller names the members and commits the sum.
      elastic_->hold(std::move(r->values));
      link_.reply(to_json(RoundReady{reductions_++, r->last}));
      pending_ = Pending{std::max(r->apply_before, clock_ + 1), false};
    } else {
      // One worker, or every message of the round came while this one computed: it is over.
      const bool done = channel_->begin(reductions_++, std::move(r->values));
      pending_ = Pending{std::max(r->apply_before, clock_ + 1), done};
    }
  }
  ++clock_;
  start_clock();
}

void RoundProtocol::message(Received r) {
  if (r.header.kind != WireKind::kRing || phase_ == Phase::kFinished) return;
  if (elastic_) {
    if (r.header.chunk == kModelChunk) return take_model(std::move(r));
    if (elastic_->take(std::move(r))) link_.reply(to_json(RoundReduced{elastic_->seq()}));
    return;
  }
  if (!channel_) return;
  if (!channel_->take(std::move(r))) return;
  if (pending_) pending_->done = true;
  if (phase_ == Phase::kWaiting) start_clock();
}

std::chrono::milliseconds RoundProtocol::timeout() const {
  if (phase_ != Phase::kComputing) return std::chrono::milliseconds(-1);
  return emulated_.timeout();
}

bool RoundProtocol::elastic_command(const std::string& verb, const nlohmann::json& cmd) {
  if (verb != ReduceCommand::kCmd && verb != CommitCommand::kCmd && verb != LeaveCommand::kCmd &&
      verb != SendModelCommand::kCmd)
    return false;
  if (!elastic_ || phase_ == Phase::kFinished) return true;  // a relay, or over: nothing to do
  if (verb == ReduceCommand::kCmd) {
    if (elastic_->reduce(reduce_command_from_json(cmd, nodes_)))
      link_.reply(to_json(RoundReduced{elastic_->seq()}));
  } else if (verb == CommitCommand::kCmd) {
    const CommitCommand c = commit_command_from_json(cmd, nodes_);
    if (!pending_ || c.seq != elastic_->seq()) return true;  // not the attempt held here
    hooks_->members_changed(c.members);
    pending_->done = true;
    if (phase_ == Phase::kWaiting) start_clock();
  } else if (verb == SendModelCommand::kCmd) {
    // A donor: the shared model as of the last commit, once applied here.
    const SendModelCommand c = send_model_command_from_json(cmd, nodes_);
    if (pending_ && pending_->done)
      deferred_sends_.push_back(c.to);
    else
      send_model(c.to);
  } else {
    // Drained: its last round is committed. It stays away, as a provider's machine that
    // left may come back: a later join sends it the model again. The clock it began is
    // not its (the log drops it), and the run's end finds it away.
    if (phase_ == Phase::kComputing || phase_ == Phase::kWaiting || phase_ == Phase::kIdle) {
      // A donor told to leave at the commit that names its joiner: the sum goes in first,
      // so the joiner gets the model the members go on with.
      if (pending_ && pending_->done && !deferred_sends_.empty()) {
        hooks_->reduced(reduction_sum());
        for (int to : std::exchange(deferred_sends_, {})) send_model(to);
      }
      pending_.reset();
      log_.left();
      phase_ = Phase::kAway;
    }
  }
  return true;
}

// The clock the joiner starts at is this worker's next: the new round's first.
void RoundProtocol::send_model(int to) {
  WireHeader h;
  h.kind = WireKind::kRing;
  h.flags = kDense;
  h.origin = self_;
  h.dest = to;
  h.iteration = clock_;
  h.chunk = kModelChunk;
  link_.van().send_kv(to, h, {}, hooks_->shared_state());
}

void RoundProtocol::take_model(Received r) {
  if (phase_ != Phase::kAway) return;  // a member has the model already
  try {
    hooks_->adopt(r.values);
  } catch (const std::exception&) {
    elastic_->refused();  // not a model of this run's size: counted, and it stays away
    return;
  }
  clock_ = r.header.iteration;
  phase_ = Phase::kIdle;
  link_.reply(to_json(CaughtUp{clock_, r.payload_bytes}));
  next_eval_ = Clock::now();
  start_clock();
}

void RoundProtocol::finish() {
  phase_ = Phase::kFinished;
  log_.finished();
}

}  // namespace testbed
