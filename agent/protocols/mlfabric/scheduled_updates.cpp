// MLfabric's scheduled updates (mlfabric_policy.h, `scheduled: true`): a worker announces
// its update and waits for the scheduler's word; it sends the update to the server or to
// an aggregator, as the server's update number seq. An aggregator (any
// worker's node) sums the places it was told and sends the sum on as one update; the
// server applies updates and sums in the scheduler's order. With a replica, workers also
// send their copies to it (or to its aggregators) when told, and it applies the same places
// in the same order.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "agent/contracts/mlfabric/mlfabric_events.h"
#include "agent/protocols/mlfabric/mlfabric_policy.h"
#include "agent/transport/wire.h"

namespace testbed {

void MlfabricPolicy::scheduled_command(const std::string& verb, const nlohmann::json& cmd) {
  if (verb == "aggregate") {
    const bool replica = cmd.value("replica", false);
    UpdateSums* sums = replica ? replica_sums_.get() : sums_.get();
    if (!sums)
      throw std::runtime_error("an aggregation for node " + std::to_string(self_) +
                               ", which is no worker");
    if (auto sum = sums->expect(cmd.at("seq").get<uint64_t>(), cmd.at("count").get<uint64_t>()))
      send_sum(std::move(*sum), replica);
    return;
  }
  if (verb == "replicate") return replicate(cmd);
  // The update the word is for, by the clock it was computed at. After a stop the words
  // still come: the server applies in order and would wait for a held update for ever.
  const auto held = held_.find(cmd.at("clock").get<uint64_t>());
  if (held == held_.end())
    throw std::runtime_error("a word for update " + cmd.at("clock").dump() + ", which node " +
                             std::to_string(self_) + " does not hold");
  SparseUpdate u = std::move(held->second);
  held_versions_.erase(held->first);
  held_.erase(held);
  if (verb == "drop") {
    ++dropped_;
    return;
  }
  const uint64_t seq = cmd.at("seq").get<uint64_t>();
  if (replica_ >= 0 && replicated_early_.erase(seq) == 0) for_replica_.emplace(seq, u);
  send_scheduled(seq, cmd.at("to").get<int>(), std::move(u));
}

// The replica's transfer may start before the server's (its path may be free first): the
// update is then still held, and a copy goes.
void MlfabricPolicy::replicate(const nlohmann::json& cmd) {
  const uint64_t seq = cmd.at("seq").get<uint64_t>();
  SparseUpdate u;
  if (const auto copy = for_replica_.find(seq); copy != for_replica_.end()) {
    u = std::move(copy->second);
    for_replica_.erase(copy);
  } else if (const auto held = held_.find(cmd.at("clock").get<uint64_t>()); held != held_.end()) {
    u = held->second;
    replicated_early_.insert(seq);
  } else {
    throw std::runtime_error("a replication of place " + std::to_string(seq) + ", which node " +
                             std::to_string(self_) + " does not hold");
  }
  ++replicated_;
  send_scheduled(seq, cmd.at("to").get<int>(), std::move(u), true);
}

void MlfabricPolicy::announce(uint64_t clock, const SparseUpdate& u, uint64_t version) {
  // What its push will carry: key-value pairs, or every value (key_map.h's rule).
  const size_t range = core_.keys().ranges().front().size();
  const size_t bytes = u.keys.empty() || shorter_dense(u.keys.size(), range)
                           ? range * sizeof(float)
                           : u.keys.size() * (sizeof(float) + sizeof(uint32_t));
  // Its norm, for the paper's divergence estimate (Eq. 11): Table 1's push carries it.
  double squares = 0;
  for (float v : u.values) squares += static_cast<double>(v) * v;
  core_.reply(to_json(UpdateAnnounced{clock, version, bytes, std::sqrt(squares)}));
}

void MlfabricPolicy::send_scheduled(uint64_t seq, int to, SparseUpdate u, bool replica) {
  bool dense = u.keys.empty();
  // One shard: its keys are the server's (a DRPS partition never comes with mlfabric-a).
  std::vector<uint32_t> keys;
  std::vector<float> values;
  if (dense) {
    values = core_.keys().gather(0, u.values);
  } else if (auto parts = core_.keys().split(u.keys, u.values);
             shorter_dense(parts.front().keys.size(), core_.keys().ranges().front().size())) {
    dense = true;  // key_map.h's rule
    core_.count_densified_push();
    values = core_.keys().densify(0, parts.front());
  } else {
    keys = std::move(parts.front().keys);
    values = std::move(parts.front().values);
  }
  if (!replica) ++pushes_sent_;
  const bool direct = to == (replica ? replica_ : core_.servers().front());
  if (!direct && to == self_) {
    // This node is the aggregator: the update does not leave it.
    UpdateSums& sums = replica ? *replica_sums_ : *sums_;
    if (auto sum = sums.add(seq, std::move(keys), values)) send_sum(std::move(*sum), replica);
    return;
  }
  WireHeader h;
  h.kind = WireKind::kPush;
  h.flags = static_cast<uint8_t>((dense ? kDense : 0) | kOrdered | (direct ? 0 : kToAggregator) |
                                 (replica ? kToReplica : 0));
  h.origin = self_;
  h.dest = to;
  h.chunk = 0;
  h.iteration = 1;  // the places it covers
  h.tag = seq;
  core_.transfer().send(to, h, keys, values);
}

void MlfabricPolicy::on_aggregator_part(Received& r) {
  if (stale_after_failover(r.header)) return;
  if (!sums_)
    throw std::runtime_error("an update for an aggregator reached node " + std::to_string(self_) +
                             ", which is no worker");
  const bool replica = r.header.flags & kToReplica;
  UpdateSums* sums = replica ? replica_sums_.get() : sums_.get();
  if (!sums) throw std::runtime_error("a replica's update reached node " + std::to_string(self_));
  if (auto sum = sums->add(r.header.tag, std::move(r.keys), r.values))
    send_sum(std::move(*sum), replica);
}

void MlfabricPolicy::send_sum(UpdateSum sum, bool replica) {
  Received r;
  WireHeader& h = r.header;
  h.kind = WireKind::kPush;
  h.flags = static_cast<uint8_t>((sum.dense ? kDense : 0) | kOrdered | (replica ? kToReplica : 0));
  h.origin = self_;
  h.dest = replica ? replica_ : core_.servers().front();
  h.chunk = 0;
  h.iteration = sum.count;
  h.tag = sum.first;
  if (h.dest != self_) return core_.transfer().send(h.dest, h, sum.keys, sum.values);
  r.keys = std::move(sum.keys);  // this node is the server too
  r.values = std::move(sum.values);
  r.received_ns = monotonic_ns();
  on_ordered_push(std::move(r));
}

void MlfabricPolicy::on_ordered_push(Received r) {
  if (stale_after_failover(r.header)) return;
  const uint64_t seq = r.header.tag, places = r.header.iteration;
  // The scheduler compares it with the arrival it planned (arrival_log.h).
  if (self_ != replica_) core_.reply(to_json(UpdateArrived{seq}));
  ordered_.add(seq, std::move(r), places);
  const uint64_t before = ordered_.applied();
  while (auto next = ordered_.next()) {
    const Received& u = next->first;
    ++ordered_messages_;
    ordered_bytes_ += u.keys.size() * sizeof(uint32_t) + u.values.size() * sizeof(float);
    core_.send_replies(
        core_.shard()->push_ordered(next->second, u.header.flags & kDense, u.keys, u.values));
    if (replica_ >= 0) apply_log_.emplace_back(ordered_.applied(), monotonic_ns());
    // MLfabric-S: when each clock took effect (its last place applied).
    if (core_.shard()->min_clock() > clock_applied_ns_.size())
      clock_applied_ns_.push_back(monotonic_ns());
  }
  if (checkpoint_.every > 0 && self_ == core_.servers().front() &&
      ordered_.applied() >= checkpointed_ + checkpoint_.every)
    write_checkpoint();
  // The scheduler lets the server's sends go as the replica reports its progress.
  if (replica_ >= 0 && self_ == replica_ && ordered_.applied() != before)
    core_.reply(to_json(ReplicaApplied{ordered_.applied()}));
}

}  // namespace testbed
