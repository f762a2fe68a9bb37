#include "agent/protocols/ps/ps_protocol.h"

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <stdexcept>

#include "agent/jobs/local_workers.h"
#include "agent/protocols/job_setup.h"
#include "agent/store/rocks_store.h"
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
  scheduled_ = s.scheduled;
  distribution_ = s.distribution;
  pull_batch_interval_ = std::chrono::milliseconds(s.pull_batch_ms);
  // A batched pull skips the shard (hold_pull): only an asynchronous shard, which answers
  // every pull at once, may leave its answers to the batch's plan.
  if (pull_batch_interval_.count() > 0 && model_.kind != Consistency::Kind::kAsync)
    throw std::runtime_error("pull batches need the asynchronous model (MLfabric-A)");
  replica_ = s.replica;
  checkpoint_ = s.checkpoint;
  // Source routes (APSP's paths) when the controller gives them; else the kernel routes.
  transfer_ = std::make_unique<RoutedTransfer>(link_.van(), self_);
  if (s.routes.is_array()) {
    std::vector<Route> routes;
    for (const auto& r : s.routes)
      routes.push_back({r.at("nodes").get<std::vector<int>>(), r.value("pace_bytes_per_s", 0.0)});
    transfer_->configure(transfer_mode_from(s.transfer.empty() ? "native" : s.transfer), routes);
  }
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
  const auto store = s.store.is_object() ? s.store : nlohmann::json::object();
  keys_ = store.contains("partition")
              ? read_partition(store["partition"], job_->parameters(), shards)
              : KeyMap(job_->parameters(), shards);
  const auto at = std::find(servers_.begin(), servers_.end(), self_);
  // MLfabric's replica holds the one server's shard too (a hot standby: no pulls come).
  // So does the checkpoints' standby, until it loads one.
  if (at != servers_.end() || (replica_ >= 0 && self_ == replica_) ||
      (checkpoint_.every > 0 && self_ == checkpoint_.standby)) {
    my_shard_ = at != servers_.end() ? static_cast<int>(at - servers_.begin()) : 0;
    const KeyRange r = keys_.ranges()[static_cast<size_t>(my_shard_)];
    const int workers = static_cast<int>(workers_.size());
    if (s.store.is_object()) {
      shard_ = std::make_unique<ServerShard>(r, workers, model_, stored_values(store, r));
    } else {
      std::vector<float> initial(r.size());
      for (uint32_t k = 0; k < r.size(); ++k)
        initial[k] = job_->initial_value(keys_.to_job(r.begin + k));
      shard_ = std::make_unique<ServerShard>(r, workers, model_, std::move(initial));
    }
  }
  if (me < 0) job_.reset();  // a server only
  if (job_) w_.assign(job_->parameters(), 0.0f);
  if (scheduled_) setup_scheduled();
  if (model_.kind == Consistency::Kind::kWsp) setup_wsp();
  read_min_clock_.assign(servers_.size(), 0);
  link_.reply({{"event", "ready"}, {"parameters", keys_.keys()}});
}

// DRPS: the shard's values in a RocksDB store of their own, fresh for every run (a run
// starts from the job's initial values), with the PIBs it holds as blocks (PIBs are in
// job keys; a PIB is whole in one shard: split at the ranges, or placed by the partition).
std::unique_ptr<ShardValues> PsProtocol::stored_values(const nlohmann::json& store, KeyRange r) {
  RocksStoreOptions o;
  o.memory_budget_bytes = store.value("memory_budget_bytes", o.memory_budget_bytes);
  o.direct_reads = store.value("direct_reads", o.direct_reads);
  const std::string dir =
      store.at("dir").get<std::string>() + "/shard-" + std::to_string(my_shard_);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::vector<uint32_t>> pibs;
  for (const auto& pib : store.value("pibs", nlohmann::json::array())) {
    auto keys = pib.get<std::vector<uint32_t>>();
    if (keys.empty() || keys_.shard_of(keys.front()) != my_shard_) continue;
    for (uint32_t& k : keys) k = keys_.to_server(k);
    pibs.push_back(std::move(keys));
  }
  auto values = std::make_unique<StoredShardValues>(
      std::make_unique<RocksStore>(dir, o), r.begin, r.end, pibs,
      [this](uint32_t key) { return job_->initial_value(keys_.to_job(key)); });
  stored_ = values.get();
  loaded_ = stored_->counters();  // the run's figures leave the initial load out
  return values;
}

int PsProtocol::worker_index(int node) const {
  const auto it = std::find(workers_.begin(), workers_.end(), node);
  return it == workers_.end() ? -1 : static_cast<int>(it - workers_.begin());
}

void PsProtocol::command(const std::string& verb, const nlohmann::json& cmd) {
  if (verb == "start") {
    if (!job_ || phase_ != Phase::kIdle) return;  // servers only serve
    next_eval_ = Clock::now();
    request(0, false);
  } else if (verb == "stop") {
    stop_requested_ = true;
    if (phase_ == Phase::kWaiting || phase_ == Phase::kComputing) finish();
  } else if (verb == "evaluate") {
    if (!job_) return link_.reply({{"event", "evaluated"}});
    phase_ = Phase::kEvaluating;
    request(clock_, true);
  } else if (verb == "stats") {
    link_.reply(stats());
  } else if (verb == "send" || verb == "drop" || verb == "aggregate" || verb == "replicate") {
    scheduled_command(verb, cmd);
  } else if (verb == "distribute" || verb == "forward") {
    distribution_command(verb, cmd);
  } else if (verb == "failover") {
    fail_over(cmd);
  } else {
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
  const bool wsp =
      kind == WireKind::kWspAsk || kind == WireKind::kWspStart || kind == WireKind::kWspGrant;
  if (kind != WireKind::kPush && kind != WireKind::kPull && kind != WireKind::kParams && !wsp)
    return;
  // A relay passes the message on; a part waits for the rest of its message.
  std::optional<Received> whole = transfer_->receive(std::move(received));
  if (!whole) return;
  Received& r = *whole;
  const WireHeader& h = r.header;
  // MLfabric's failover: what the dead server sent before it died is of no use now.
  if (failover_.dead_server >= 0 && h.origin == failover_.dead_server) {
    ++failover_.stale_messages;
    return;
  }
  if (wsp) {
    if (model_.kind != Consistency::Kind::kWsp) throw std::runtime_error("a WSP message, no WSP");
    return wsp_message(r);
  }
  if (h.kind == WireKind::kParams && (h.flags & kToDistributor))
    return on_distributed(std::move(r));
  if (h.kind == WireKind::kParams) return on_params(r);
  if (h.kind == WireKind::kPush && (h.flags & kToAggregator)) return on_aggregator_part(r);
  if (!shard_ || static_cast<int>(h.chunk) != my_shard_)
    throw std::runtime_error("a message for shard " + std::to_string(h.chunk) + " reached node " +
                             std::to_string(self_));
  const int worker = worker_index(h.origin);
  if (worker < 0) throw std::runtime_error("a message from a node that is no worker");
  const bool dense = h.flags & kDense;
  if (h.kind == WireKind::kPush && (h.flags & kOrdered)) {
    on_ordered_push(std::move(r));
  } else if (h.kind == WireKind::kPush) {
    apply_push(r);
  } else if (pull_batch_interval_.count() > 0 && dense && !(h.flags & kLatest)) {
    hold_pull(worker, h.iteration);  // MLfabric-A: no values read until the batch's plan
  } else {
    send_replies(shard_->pull(worker, h.iteration, dense, std::move(r.keys), h.flags & kLatest));
  }
}

void PsProtocol::apply_push(Received& r) {
  const WireHeader& h = r.header;
  send_replies(shard_->push(worker_index(h.origin), h.iteration, h.tag, h.flags & kDense, r.keys,
                            r.values, r.received_ns));
}

void PsProtocol::send_replies(const std::vector<PullReply>& replies) {
  for (const auto& p : replies) {
    if (awaits_plan(p)) {
      awaiting_plan_[p.clock].push_back(p);
      continue;
    }
    WireHeader h;
    h.kind = WireKind::kParams;
    h.flags = static_cast<uint8_t>((p.dense ? kDense : 0) | (p.latest ? kLatest : 0));
    h.origin = self_;
    h.dest = workers_[static_cast<size_t>(p.worker)];
    h.chunk = static_cast<uint32_t>(my_shard_);
    h.iteration = p.clock;
    // Scheduled: the model's version (updates applied), which the scheduler's deadlines
    // count in; else what the values reflect of the workers' clocks.
    h.tag = scheduled_ ? shard_->updates_applied() : p.min_clock;
    if (send_planned(p, h)) continue;  // at the plan's time, or by a distributor
    if (!p.latest) ++answered_directly_;
    transfer_->send(h.dest, h, p.keys, p.values);
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
      return link_.reply({{"event", "evaluated"}, {"loss", loss}});
    }
    log_.evaluated(clock_, loss);
  }
  log_.started(clock_, now);
  iteration_start_ = now;
  if (wsp_master_ >= 0) tell_wsp_master(WireKind::kWspStart);
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
  pushed();
}

void PsProtocol::pushed() {
  ++pushes_sent_;
  update_ = {};
  next_clock();
}

void PsProtocol::next_clock() {
  if (phase_ == Phase::kFinished) return;  // sent after a stop: nothing follows
  ++clock_;
  // WSP: the master decides when this read may go; the iteration's length is the worker's
  // own, from its parameters' arrival to this request.
  if (wsp_master_ >= 0)
    tell_wsp_master(WireKind::kWspAsk, std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           Clock::now() - iteration_start_)
                                           .count());
  request(clock_, false);
}

void PsProtocol::tick() {
  if (transfer_) transfer_->tick();
  close_pull_batch();
  send_due();
  if (phase_ == Phase::kComputing && emulated_.finished()) {
    log_.computed(clock_);
    scheduled_ ? announce_update() : push_update();
  }
}

std::chrono::milliseconds PsProtocol::timeout() const {
  using std::chrono::milliseconds;
  milliseconds paced = transfer_ ? transfer_->timeout() : milliseconds(-1);
  if (const milliseconds planned = paced_timeout(); planned.count() >= 0)
    paced = paced.count() < 0 ? planned : std::min(paced, planned);
  if (!pull_batch_.empty()) {
    const auto due =
        std::max(milliseconds(0), std::chrono::ceil<milliseconds>(pull_batch_due_ - Clock::now()));
    paced = paced.count() < 0 ? due : std::min(paced, due);
  }
  if (phase_ != Phase::kComputing) return paced;
  const auto left = emulated_.timeout();
  return paced.count() < 0 ? left : std::min(left, paced);
}

void PsProtocol::finish() {
  phase_ = Phase::kFinished;
  log_.finished();
}

}  // namespace testbed
