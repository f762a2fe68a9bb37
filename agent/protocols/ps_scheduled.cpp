// MLfabric-A's side of the parameter server (ps_protocol.h, `scheduled: true`): a worker
// announces its update and waits for the scheduler's word; it sends the update to the
// server or to an aggregator, as the server's update number seq. An aggregator (any
// worker's node) sums the places it was told and sends the sum on as one update; the
// server applies updates and sums in the scheduler's order.
#include <algorithm>
#include <stdexcept>

#include "ps_protocol.h"
#include "wire.h"

namespace testbed {

void PsProtocol::setup_scheduled() {
  if (servers_.size() != 1)
    throw std::runtime_error("scheduled updates go to one server, not " +
                             std::to_string(servers_.size()));
  if (job_) sums_ = std::make_unique<UpdateSums>(keys_.ranges().front().size());
}

void PsProtocol::scheduled_command(const std::string& verb, const nlohmann::json& cmd) {
  if (verb == "aggregate") {
    if (!sums_)
      throw std::runtime_error("an aggregation for node " + std::to_string(self_) +
                               ", which is no worker");
    if (auto sum = sums_->expect(cmd.at("seq").get<uint64_t>(), cmd.at("count").get<uint64_t>()))
      send_sum(std::move(*sum));
    return;
  }
  // The update the word is for, by the clock it was computed at. After a stop the words
  // still come: the server applies in order and would wait for a held update for ever.
  const auto held = held_.find(cmd.at("clock").get<uint64_t>());
  if (held == held_.end())
    throw std::runtime_error("a word for update " + cmd.at("clock").dump() + ", which node " +
                             std::to_string(self_) + " does not hold");
  SparseUpdate u = std::move(held->second);
  held_.erase(held);
  if (verb == "drop") {
    ++dropped_;
    return;
  }
  send_scheduled(cmd.at("seq").get<uint64_t>(), cmd.at("to").get<int>(), std::move(u));
}

// Table 1's push returns at once: the scheduler holds the update's transfer back while
// the worker pulls the model and computes its next one (the delay bound drops what grows
// too old).
void PsProtocol::announce_update() {
  const uint64_t version = *std::min_element(read_min_clock_.begin(), read_min_clock_.end());
  const size_t per_value = update_.keys.empty() ? sizeof(float) : sizeof(float) + sizeof(uint32_t);
  link_.reply({{"event", "update"},
               {"clock", clock_},
               {"version", version},
               {"bytes", update_.values.size() * per_value}});
  held_.emplace(clock_, std::move(update_));
  update_ = {};
  next_clock();
}

void PsProtocol::send_scheduled(uint64_t seq, int to, SparseUpdate u) {
  const bool dense = u.keys.empty();
  // One shard: its keys are the server's (a DRPS partition never comes with mlfabric-a).
  std::vector<uint32_t> keys;
  std::vector<float> values;
  if (dense) {
    values = keys_.gather(0, u.values);
  } else {
    auto parts = keys_.split(u.keys, u.values);
    keys = std::move(parts.front().keys);
    values = std::move(parts.front().values);
  }
  ++pushes_sent_;
  const bool to_server = to == servers_.front();
  if (!to_server && to == self_) {
    // This node is the aggregator: the update does not leave it.
    if (auto sum = sums_->add(seq, std::move(keys), values)) send_sum(std::move(*sum));
    return;
  }
  WireHeader h;
  h.kind = WireKind::kPush;
  h.flags = static_cast<uint8_t>((dense ? kDense : 0) | kOrdered | (to_server ? 0 : kToAggregator));
  h.origin = self_;
  h.dest = to;
  h.chunk = 0;
  h.iteration = 1;  // the places it covers
  h.tag = seq;
  transfer_->send(to, h, keys, values);
}

void PsProtocol::on_aggregator_part(Received& r) {
  if (!sums_)
    throw std::runtime_error("an update for an aggregator reached node " + std::to_string(self_) +
                             ", which is no worker");
  if (auto sum = sums_->add(r.header.tag, std::move(r.keys), r.values)) send_sum(std::move(*sum));
}

void PsProtocol::send_sum(UpdateSum sum) {
  Received r;
  WireHeader& h = r.header;
  h.kind = WireKind::kPush;
  h.flags = static_cast<uint8_t>((sum.dense ? kDense : 0) | kOrdered);
  h.origin = self_;
  h.dest = servers_.front();
  h.chunk = 0;
  h.iteration = sum.count;
  h.tag = sum.first;
  if (h.dest != self_) return transfer_->send(h.dest, h, sum.keys, sum.values);
  r.keys = std::move(sum.keys);  // this node is the server too
  r.values = std::move(sum.values);
  r.received_ns = monotonic_ns();
  on_ordered_push(std::move(r));
}

void PsProtocol::on_ordered_push(Received r) {
  const uint64_t seq = r.header.tag, places = r.header.iteration;
  ordered_.add(seq, std::move(r), places);
  while (auto next = ordered_.next()) {
    const Received& u = next->first;
    ++ordered_messages_;
    ordered_bytes_ += u.keys.size() * sizeof(uint32_t) + u.values.size() * sizeof(float);
    send_replies(shard_->push_ordered(next->second, u.header.flags & kDense, u.keys, u.values,
                                      u.received_ns));
  }
}

}  // namespace testbed
