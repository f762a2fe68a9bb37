#include "agent/protocols/mlfabric/mlfabric_policy.h"

#include <algorithm>
#include <stdexcept>

namespace testbed {

std::unique_ptr<PsPolicy> make_mlfabric_policy(const TrainingSetup& s, PsCore& core) {
  if (!s.scheduled && !s.distribution && s.pull_batch_ms <= 0 && s.replica < 0 &&
      s.checkpoint.every == 0)
    return nullptr;
  return std::make_unique<MlfabricPolicy>(s, core);
}

MlfabricPolicy::MlfabricPolicy(const TrainingSetup& s, PsCore& core)
    : core_(core),
      self_(core.self()),
      worker_(core.worker_index(core.self()) >= 0),
      scheduled_(s.scheduled),
      replica_(s.replica),
      checkpoint_(s.checkpoint),
      distribution_(s.distribution),
      pull_batch_interval_(s.pull_batch_ms) {
  // A batched pull skips the shard (hold_pull): only an asynchronous shard, which answers
  // every pull at once, may leave its answers to the batch's plan.
  if (pull_batch_interval_.count() > 0 && core_.consistency().kind != Consistency::Kind::kAsync)
    throw std::runtime_error("pull batches need the asynchronous model (MLfabric-A)");
  if (!scheduled_) return;
  if (core_.servers().size() != 1)
    throw std::runtime_error("scheduled updates go to one server, not " +
                             std::to_string(core_.servers().size()));
  const size_t range = core_.keys().ranges().front().size();
  if (worker_) sums_ = std::make_unique<UpdateSums>(range);
  if (worker_ && replica_ >= 0) replica_sums_ = std::make_unique<UpdateSums>(range);
}

// The replica holds the one server's shard too (a hot standby: no pulls come). So does the
// checkpoints' standby, until it loads one.
bool MlfabricPolicy::holds_shard_copy() const {
  return (replica_ >= 0 && self_ == replica_) ||
         (checkpoint_.every > 0 && self_ == checkpoint_.standby);
}

// The replica reports its copy apart: the run's server figures are the server's.
const char* MlfabricPolicy::shard_role() const {
  return replica_ >= 0 && self_ == replica_ ? "replica" : nullptr;
}

bool MlfabricPolicy::command(const std::string& verb, const nlohmann::json& cmd) {
  if (verb == "send" || verb == "drop" || verb == "aggregate" || verb == "replicate") {
    scheduled_command(verb, cmd);
  } else if (verb == "distribute" || verb == "forward") {
    distribution_command(verb, cmd);
  } else if (verb == "failover") {
    fail_over(cmd);
  } else {
    return false;
  }
  return true;
}

// What the dead server sent, a distributor's copy, a part for an aggregator, a scheduled
// update, and a dense pull the server batches: the rest is the core's.
bool MlfabricPolicy::takes(const WireHeader& h) const {
  if (failover_.dead_server >= 0 && h.origin == failover_.dead_server) return true;
  if (h.kind == WireKind::kParams) return h.flags & kToDistributor;
  if (h.kind == WireKind::kPush) return h.flags & (kToAggregator | kOrdered);
  return h.kind == WireKind::kPull && pull_batch_interval_.count() > 0 && (h.flags & kDense) &&
         !(h.flags & kLatest);
}

void MlfabricPolicy::message(Received r) {
  const WireHeader& h = r.header;
  // What the dead server sent before it died is of no use now.
  if (failover_.dead_server >= 0 && h.origin == failover_.dead_server) {
    ++failover_.stale_messages;
    return;
  }
  if (h.kind == WireKind::kParams) return on_distributed(std::move(r));
  if (h.kind == WireKind::kPush && (h.flags & kToAggregator)) return on_aggregator_part(r);
  const int worker = core_.checked_sender(h);
  if (h.kind == WireKind::kPush) return on_ordered_push(std::move(r));
  hold_pull(worker, h.iteration);  // MLfabric-A: no values read until the batch's plan
}

// Table 1's push returns at once: the scheduler holds the update's transfer back while
// the worker pulls the model and computes its next one (the delay bound drops what grows
// too old).
bool MlfabricPolicy::computed(uint64_t clock, SparseUpdate& update) {
  if (!scheduled_) return false;
  const uint64_t version = core_.read_version();
  announce(clock, update, version);
  held_.emplace(clock, std::move(update));
  held_versions_.emplace(clock, version);
  return true;
}

bool MlfabricPolicy::answer(const PullReply& p, WireHeader& reply) {
  if (awaits_plan(p)) {
    awaiting_plan_[p.clock].push_back(p);
    return true;
  }
  // Scheduled: the model's version (updates applied), which the scheduler's deadlines
  // count in, in place of what the values reflect of the workers' clocks.
  if (scheduled_) reply.tag = core_.shard()->updates_applied();
  if (send_planned(p, reply)) return true;  // at the plan's time, or by a distributor
  if (!p.latest) ++answered_directly_;
  return false;
}

void MlfabricPolicy::tick() {
  close_pull_batch();
  send_due();
}

std::chrono::milliseconds MlfabricPolicy::timeout() const {
  using std::chrono::milliseconds;
  milliseconds t = paced_timeout();
  if (!pull_batch_.empty()) {
    const auto due =
        std::max(milliseconds(0), std::chrono::ceil<milliseconds>(pull_batch_due_ - Clock::now()));
    t = t.count() < 0 ? due : std::min(t, due);
  }
  return t;
}

// The sections' shape is the contract's (agent/contracts/mlfabric/mlfabric_report.h).
void MlfabricPolicy::stats(nlohmann::json& node, nlohmann::json* shard) const {
  std::optional<MlfabricWorkerSections> worker;
  if (scheduled_ && worker_)
    worker = MlfabricWorkerSections{{pushes_sent_, dropped_, replicated_},
                                    {sums_->sums(), sums_->updates(), sums_->waiting()},
                                    {forwarded_, kept_}};
  std::optional<MlfabricFailoverSection> failover;
  if (failover_.dead_server >= 0) failover = failover_stats();
  write_mlfabric_node_sections(node, worker, failover);
  if (!shard) return;
  MlfabricShardSections s;
  if (scheduled_) {
    s.ordered = {ordered_.applied(), ordered_.early(), ordered_.waiting(), ordered_messages_,
                 ordered_bytes_};
    s.models_sent = {answered_directly_, to_distributors_};
  }
  if (checkpoint_cost_.writes > 0)
    s.checkpoint = {checkpoint_.every,        checkpoint_cost_.writes, checkpoint_cost_.bytes,
                    checkpoint_cost_.seconds, checkpoint_cost_.max_s,  checkpointed_};
  if (scheduled_) s.clock_applied_ns = clock_applied_ns_;
  write_mlfabric_shard_sections(*shard, s);
  if (replica_ >= 0) write_apply_log(*shard, apply_log_);
}

}  // namespace testbed
