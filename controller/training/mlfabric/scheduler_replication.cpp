// The replica's side of MLfabric's scheduler (update_scheduler.h, Sec. 5.3): after each
// batch, the updates the replica lacks are placed towards it (replication.h); the frozen
// ones are told to their workers (and the replica's aggregators) at their start, the rest
// wait for the next batch. What the replica reports it has applied opens the sends to the
// server that wait for it.
#include <algorithm>

#include "controller/training/mlfabric/update_scheduler.h"

namespace testbed {

std::optional<double> UpdateScheduler::replicate(std::vector<ReplicaCandidate> fresh,
                                                 uint64_t server_ordered, double server_end_s,
                                                 uint64_t div_max, double now_s) {
  std::vector<ReplicaCandidate> candidates = std::move(punted_);
  punted_.clear();
  candidates.insert(candidates.end(), fresh.begin(), fresh.end());
  // The replica's aggregators are earmarked for it (the paper's k'): as many as the
  // server's, drawn apart from them.
  const ReplicationPlan r =
      plan_replication(candidates, {server_ordered, replica_planned_, server_end_s, div_max},
                       pick_aggregators(), to_replica_, o_.model_bytes, network_, now_s);
  for (const auto& g : r.sends.groups) {
    replica_bytes_ += g.bytes;
    if (g.aggregator < 0) continue;
    ++replica_groups_;
    replica_aggregated_ += g.count;
    told_now_.push_back({g.aggregator, SchedulerDecision::Word::kAggregate, 0,
                         candidates[g.first].seq, -1, g.count, true, 0});
  }
  for (size_t i = 0; i < r.frozen; ++i)
    starts_.emplace(
        r.sends.transfers[i].start_s,
        SchedulerDecision{candidates[i].worker, SchedulerDecision::Word::kReplicate,
                          candidates[i].clock, candidates[i].seq, r.sends.to[i], 1, true, 0});
  replica_planned_ += r.frozen;
  punted_.assign(candidates.begin() + static_cast<std::ptrdiff_t>(r.frozen), candidates.end());
  max_planned_lead_ = std::max(max_planned_lead_, r.lead_at_end);
  return r.hold_last_until_s;
}

void UpdateScheduler::replica_applied(uint64_t applied, double /*now_s*/) {
  replica_applied_ = std::max(replica_applied_, applied);
}

void UpdateScheduler::flush_replica(double now_s) {
  if (!o_.div_max) return;
  flushing_ = true;  // a batch still to run sends what it punts at once
  if (punted_.empty()) return;
  network_.forget_before(now_s);
  // A bound of 0 at the present instant, with every punted place counted as the server's
  // (a batch running now has not numbered its own yet): every punted update is frozen.
  replicate({}, replica_planned_ + punted_.size(), now_s, 0, now_s);
}

nlohmann::json UpdateScheduler::replication_stats() const {
  if (!o_.div_max) return nullptr;
  return {{"div_max", *o_.div_max},
          {"replica_planned", replica_planned_},
          {"punted_now", punted_.size()},
          {"groups", replica_groups_},
          {"aggregated_updates", replica_aggregated_},
          {"planned_bytes_to_replica", replica_bytes_},
          {"server_transfers_held", held_last_},
          {"sends_gated", gate_waits_},
          {"gate_wait_s", gate_wait_s_},
          {"max_planned_lead", max_planned_lead_},
          {"replica_applied_reported", replica_applied_}};
}

}  // namespace testbed
