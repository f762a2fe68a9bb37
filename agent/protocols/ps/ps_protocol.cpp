#include "agent/protocols/ps/ps_protocol.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "agent/contracts/node_replies.h"
#include "agent/contracts/worker_events.h"
#include "agent/jobs/local_workers.h"
#include "agent/protocols/job_setup.h"
#include "agent/transport/wire.h"

namespace testbed {
namespace {

std::vector<uint32_t> merged(std::vector<uint32_t> a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

void PsProtocol::setup(const nlohmann::json& cmd) {
  const TrainingSetup s = training_setup_from_json(cmd);
  workers_ = s.workers;
  servers_ = s.servers;
  model_ = consistency_from(s.consistency, s.staleness);
  seed_ = s.seed;
  iterations_ = s.iterations;
  compute_ = {s.compute.min_ms, s.compute.max_ms};
  stragglers_ = {s.compute.straggler_share, s.compute.straggler_factor};
  emulated_.set_on_cpu(s.compute.on_cpu);
  eval_interval_ = std::chrono::milliseconds(s.eval_interval_ms);
  // The kernel's routes unless a policy gives source routes (APSP's paths).
  transfer_ = std::make_unique<RoutedTransfer>(link_.van(), self_);
  // A node's worker may stand for several (Bösen's threads behind one process cache):
  // their updates are summed here, and the job counts them all.
  per_node_ = s.job.workers_per_node;
  slowdown_ = s.slowdown(self_);
  const JobConfig config = job_config(s.job, static_cast<int>(workers_.size()) * per_node_);
  // Every node builds a job: the shards take their initial values from it, and every
  // node agrees on the model's size and so on the key ranges.
  const int me = worker_index(self_);
  job_ = make_local_workers(config, std::max(me, 0), per_node_);
  const int shards = static_cast<int>(servers_.size());
  keys_ = s.key_partition.empty() ? KeyMap(job_->parameters(), shards)
                                  : read_partition(s.key_partition, job_->parameters(), shards);
  // The system's policies, once the layout they read is known.
  for (PsPolicyMaker make : makers_)
    if (auto policy = make(s, *this)) policies_.push_back(std::move(policy));
  const auto at = std::find(servers_.begin(), servers_.end(), self_);
  bool copy = false;  // a policy's standby copy of shard 0 (MLfabric's replica)
  for (const auto& policy : policies_) copy = copy || policy->holds_shard_copy();
  if (at != servers_.end() || copy) {
    my_shard_ = at != servers_.end() ? static_cast<int>(at - servers_.begin()) : 0;
    const KeyRange r = keys_.ranges()[static_cast<size_t>(my_shard_)];
    const int workers = static_cast<int>(workers_.size());
    std::unique_ptr<ShardValues> kept;  // by a policy (DRPS: on disk), else in memory
    for (auto& policy : policies_)
      if (!kept) kept = policy->shard_values(my_shard_, r);
    if (kept) {
      shard_ = std::make_unique<ServerShard>(r, workers, model_, std::move(kept));
    } else {
      std::vector<float> initial(r.size());
      for (uint32_t k = 0; k < r.size(); ++k)
        initial[k] = job_->initial_value(keys_.to_job(r.begin + k));
      shard_ = std::make_unique<ServerShard>(r, workers, model_, std::move(initial));
    }
  }
  if (me < 0) job_.reset();  // a server only
  if (job_) w_.assign(job_->parameters(), 0.0f);
  read_min_clock_.assign(servers_.size(), 0);
  link_.reply(to_json(NodeReady{keys_.keys()}));
}

int PsProtocol::worker_index(int node) const {
  const auto it = std::find(workers_.begin(), workers_.end(), node);
  return it == workers_.end() ? -1 : static_cast<int>(it - workers_.begin());
}

void PsProtocol::command(const std::string& verb, const nlohmann::json& cmd) {
  if (verb == "start") {
    if (!job_ || phase_ != Phase::kIdle) return;  // servers only serve
    next_eval_ = Clock::now();
    if (held(0)) {
      phase_ = Phase::kHeld;  // outside from the start
      return;
    }
    request(0, false);
  } else if (verb == "stop") {
    stop_requested_ = true;
    if (phase_ == Phase::kWaiting || phase_ == Phase::kComputing || phase_ == Phase::kHeld)
      finish();
  } else if (verb == "evaluate") {
    if (!job_) return link_.reply(to_json(ModelEvaluated{}));
    phase_ = Phase::kEvaluating;
    request(clock_, true);
  } else if (verb == "stats") {
    link_.reply(stats());
  } else {
    for (auto& policy : policies_)
      if (policy->command(verb, cmd)) return;
    throw std::runtime_error("ps protocol: unknown command " + verb);
  }
}

// Pulls the keys of `clock` (and, when an evaluation is due, those of the held-out loss)
// from every shard. Every shard is asked, even for no keys: its answer is what holds the
// worker to the consistency model.
void PsProtocol::request(uint64_t clock, bool latest) {
  const auto now = Clock::now();
  evaluate_these_ =
      latest || clock == 0 || clock == static_cast<uint64_t>(iterations_) || now >= next_eval_;
  if (evaluate_these_ && !latest) next_eval_ = now + eval_interval_;
  std::vector<uint32_t> keys = latest ? job_->eval_keys() : job_->keys_for(clock);
  const bool all = keys.empty();                                                  // a dense job
  if (!latest && clock < static_cast<uint64_t>(iterations_)) count_pulled(keys);  // not the last
  if (!all && evaluate_these_ && !latest) keys = merged(std::move(keys), job_->eval_keys());
  const auto parts = all ? std::vector<KeyMap::Part>() : keys_.split(keys, {});
  replies_left_ = static_cast<int>(servers_.size());
  if (phase_ != Phase::kEvaluating) phase_ = Phase::kWaiting;
  for (size_t s = 0; s < servers_.size(); ++s) {
    // Most of a shard's keys: ask for all of it (key_map.h's rule); the answer comes dense.
    const bool dense = all || shorter_dense(parts[s].keys.size(), keys_.ranges()[s].size());
    if (dense && !all) ++densified_.pulls;
    WireHeader h;
    h.kind = WireKind::kPull;
    h.flags = static_cast<uint8_t>((dense ? kDense : 0) | (latest ? kLatest : 0));
    h.origin = self_;
    h.dest = servers_[s];
    h.chunk = static_cast<uint32_t>(s);
    h.iteration = clock;
    transfer_->send(servers_[s], h, dense ? std::vector<uint32_t>() : parts[s].keys, {});
  }
}

// DRPS's network figure (Sec. 7.2): the parameters a worker's training pulls ask of shards
// on other nodes, beside those its own node's shard answers (evaluation's keys left out).
void PsProtocol::count_pulled(const std::vector<uint32_t>& keys) {
  if (keys.empty()) {  // dense: every shard's whole range
    for (size_t s = 0; s < servers_.size(); ++s)
      (servers_[s] == self_ ? pulled_local_ : pulled_remote_) += keys_.ranges()[s].size();
    return;
  }
  for (uint32_t k : keys)
    ++(servers_[static_cast<size_t>(keys_.shard_of(k))] == self_ ? pulled_local_ : pulled_remote_);
}

void PsProtocol::message(Received received) {
  const WireKind kind = received.header.kind;
  const auto taker = [&](const WireHeader& h) -> PsPolicy* {
    for (auto& policy : policies_)
      if (policy->takes(h)) return policy.get();
    return nullptr;
  };
  if (kind != WireKind::kPush && kind != WireKind::kPull && kind != WireKind::kParams &&
      !taker(received.header))
    return;
  // A relay passes the message on; a part waits for the rest of its message.
  std::optional<Received> whole = transfer_->receive(std::move(received));
  if (!whole) return;
  Received& r = *whole;
  const WireHeader& h = r.header;
  if (PsPolicy* policy = taker(h)) return policy->message(std::move(r));
  if (h.kind == WireKind::kParams) return on_params(r);
  const int worker = checked_sender(h);
  if (h.kind == WireKind::kPush) return apply_push(r);
  send_replies(
      shard_->pull(worker, h.iteration, h.flags & kDense, std::move(r.keys), h.flags & kLatest));
}

int PsProtocol::checked_sender(const WireHeader& h) const {
  if (!shard_ || static_cast<int>(h.chunk) != my_shard_)
    throw std::runtime_error("a message for shard " + std::to_string(h.chunk) + " reached node " +
                             std::to_string(self_));
  const int worker = worker_index(h.origin);
  if (worker < 0) throw std::runtime_error("a message from a node that is no worker");
  return worker;
}

void PsProtocol::apply_push(Received& r) {
  const WireHeader& h = r.header;
  send_replies(shard_->push(worker_index(h.origin), h.iteration, h.tag, h.flags & kDense, r.keys,
                            r.values, r.received_ns));
}

void PsProtocol::send_replies(const std::vector<PullReply>& replies) {
  for (const auto& p : replies) {
    WireHeader h;
    h.kind = WireKind::kParams;
    h.flags = static_cast<uint8_t>((p.dense ? kDense : 0) | (p.latest ? kLatest : 0));
    h.origin = self_;
    h.dest = workers_[static_cast<size_t>(p.worker)];
    h.chunk = static_cast<uint32_t>(my_shard_);
    h.iteration = p.clock;
    h.tag = p.min_clock;  // what the values reflect of the workers' clocks
    bool taken = false;   // restamped, and perhaps sent, by a policy (MLfabric's plans)
    for (auto& policy : policies_) taken = taken || policy->answer(p, h);
    if (!taken) transfer_->send(h.dest, h, p.keys, p.values);
  }
}

void PsProtocol::on_params(const Received& r) {
  // After a stop, answers to the abandoned pull still arrive: they change nothing.
  const bool latest = r.header.flags & kLatest;
  if (phase_ == Phase::kEvaluating
          ? !latest
          : phase_ != Phase::kWaiting || latest || r.header.iteration != clock_)
    return;
  const size_t s = r.header.chunk;
  if (r.header.flags & kDense) {
    keys_.scatter(static_cast<int>(s), r.values, w_);
  } else {
    for (size_t i = 0; i < r.keys.size(); ++i) w_.at(keys_.to_job(r.keys[i])) = r.values[i];
  }
  read_min_clock_[s] = r.header.tag;
  if (--replies_left_ == 0) params_complete();
}

void PsProtocol::params_complete() {
  const auto now = Clock::now();
  if (evaluate_these_) {
    const double loss = job_->held_out_loss(w_);
    if (phase_ == Phase::kEvaluating) {
      phase_ = Phase::kFinished;
      return link_.reply(to_json(ModelEvaluated{loss}));
    }
    log_.evaluated(clock_, loss);
  }
  log_.started(clock_, now);
  for (auto& policy : policies_) policy->iteration_started(clock_);
  if (stop_requested_ || clock_ >= static_cast<uint64_t>(iterations_)) return finish();
  // The real computation, then the rest of the emulated compute time (stragglers).
  phase_ = Phase::kComputing;
  emulated_.start();
  update_ = job_->update(clock_, w_);
  log_.add_samples(job_->samples_per_update());
  emulated_.set_length(
      local_compute_ms(compute_, seed_, self_, per_node_, clock_, slowdown_, stragglers_));
}

void PsProtocol::push_update() {
  const bool all = update_.keys.empty();  // a dense job
  const auto parts = all ? std::vector<KeyMap::Part>() : keys_.split(update_.keys, update_.values);
  for (size_t s = 0; s < servers_.size(); ++s) {
    const bool dense = all || shorter_dense(parts[s].keys.size(), keys_.ranges()[s].size());
    if (dense && !all) ++densified_.pushes;
    WireHeader h;
    h.kind = WireKind::kPush;
    h.flags = static_cast<uint8_t>(dense ? kDense : 0);
    h.origin = self_;
    h.dest = servers_[s];
    h.chunk = static_cast<uint32_t>(s);
    h.iteration = clock_;
    h.tag = read_min_clock_[s];
    if (all)
      transfer_->send(servers_[s], h, {}, keys_.gather(static_cast<int>(s), update_.values));
    else if (dense)
      transfer_->send(servers_[s], h, {}, keys_.densify(static_cast<int>(s), parts[s]));
    else
      transfer_->send(servers_[s], h, parts[s].keys, parts[s].values);
  }
  update_ = {};
  next_clock();
}

// What the worker's values reflect: the least of its shards' answers.
uint64_t PsProtocol::read_version() const {
  return *std::min_element(read_min_clock_.begin(), read_min_clock_.end());
}

// A server's failure: the pull under way, if any, is asked again of the shards now named.
bool PsProtocol::ask_again() {
  if (phase_ != Phase::kWaiting && phase_ != Phase::kEvaluating) return false;
  request(clock_, phase_ == Phase::kEvaluating);
  return true;
}

void PsProtocol::next_clock() {
  if (phase_ == Phase::kFinished) return;  // sent after a stop: nothing follows
  ++clock_;
  for (auto& policy : policies_) policy->next_pull(clock_);
  if (held(clock_)) {
    // Outside: the clock it pushed ends here, and the time until it comes back is no
    // clock's (the log reports no duration across it).
    phase_ = Phase::kHeld;
    log_.left();
    return;
  }
  request(clock_, false);
}

bool PsProtocol::held(uint64_t clock) {
  bool hold = false;
  for (auto& policy : policies_) hold = policy->holds_pull(clock) || hold;
  return hold;
}

void PsProtocol::resume_pulls() {
  if (phase_ != Phase::kHeld) return;
  next_eval_ = Clock::now();  // its catch-up pull brings values to evaluate too
  request(clock_, false);
}

void PsProtocol::tick() {
  if (transfer_) transfer_->tick();
  for (auto& policy : policies_) policy->tick();
  if (phase_ == Phase::kComputing && emulated_.finished()) {
    log_.computed(clock_);
    bool taken = false;  // held by a policy (MLfabric's scheduled updates)
    for (auto& policy : policies_) taken = taken || policy->computed(clock_, update_);
    if (!taken) return push_update();
    update_ = {};
    next_clock();
  }
}

std::chrono::milliseconds PsProtocol::timeout() const {
  using std::chrono::milliseconds;
  milliseconds paced = transfer_ ? transfer_->timeout() : milliseconds(-1);
  for (const auto& policy : policies_)
    if (const milliseconds due = policy->timeout(); due.count() >= 0)
      paced = paced.count() < 0 ? due : std::min(paced, due);
  if (phase_ != Phase::kComputing) return paced;
  const auto left = emulated_.timeout();
  return paced.count() < 0 ? left : std::min(left, paced);
}

void PsProtocol::finish() {
  phase_ = Phase::kFinished;
  log_.finished();
}

}  // namespace testbed
