// MLfabric-S's model distribution (Sec. 10.3) on the parameter server's nodes (ps_protocol.h):
// the controller plans, for each clock, which workers the server answers itself and which
// get the model from a distributor on a worker's node; the server sends the distributors
// one copy each (the last group's first, as planned) before its direct answers, and drops
// its answers to the workers a distributor serves; a distributor passes its copy on, its
// own worker last, so forwarding never waits for a computation to start.
// Only whole-model answers (a dense job's pulls) are distributed: a sparse pull asks for
// keys of its own, which no other worker's answer carries.
#include <algorithm>
#include <stdexcept>

#include "ps_protocol.h"
#include "wire.h"

namespace testbed {

void PsProtocol::distribution_command(const std::string& verb, const nlohmann::json& cmd) {
  const uint64_t clock = cmd.at("clock").get<uint64_t>();
  if (verb == "distribute") {  // to the server
    if (!shard_)
      throw std::runtime_error("a distribution plan for node " + std::to_string(self_) +
                               ", which serves no shard");
    DistributionOrder& d = distribute_[clock];
    for (const auto& g : cmd.at("groups"))
      d.groups.push_back({g.at("via").get<int>(), g.at("to").get<std::vector<int>>(),
                          g.at("at").get<std::vector<double>>()});
    if (const auto held = awaiting_plan_.find(clock); held != awaiting_plan_.end()) {
      const std::vector<PullReply> replies = std::move(held->second);
      awaiting_plan_.erase(held);
      send_replies(replies);
    }
    return;
  }
  forward_to_[clock] = cmd.at("to").get<std::vector<int>>();  // to a distributor
  forward(clock);
}

bool PsProtocol::awaits_plan(const PullReply& p) const {
  return distribution_ && !p.latest && p.dense && p.clock > 0 && !distribute_.count(p.clock);
}

// The group whose workers get `node`'s answer of this clock; null when unplanned.
const PsProtocol::DistributionGroupOrder* PsProtocol::group_of(uint64_t clock, int node) const {
  const auto d = distribute_.find(clock);
  if (d == distribute_.end()) return nullptr;
  for (const auto& g : d->second.groups)
    if (std::find(g.to.begin(), g.to.end(), node) != g.to.end()) return &g;
  return nullptr;
}

// The server's sends of a planned clock go at the plan's times from the moment its first
// answer is ready (MLfabric's non-overlapping transfers): the distributors' copies first,
// then the direct answers, so a copy is not slowed by answers sharing the downlink with it.
// Returns whether `p` was taken care of: queued, or left to a distributor.
bool PsProtocol::send_planned(const PullReply& p, const WireHeader& reply) {
  if (p.latest || !p.dense) return false;
  const auto d = distribute_.find(p.clock);
  if (d == distribute_.end()) return false;
  const auto* group = group_of(p.clock, reply.dest);
  if (!group) return false;
  DistributionOrder& order = d->second;
  if (!order.base) {
    order.base = Clock::now();
    for (const auto& g : order.groups) {
      if (g.via < 0) continue;
      WireHeader h = reply;
      h.flags = static_cast<uint8_t>(h.flags | kToDistributor);
      h.dest = g.via;
      pace(*order.base, g.at.at(0), h, p.values);
      ++to_distributors_;
    }
  }
  if (group->via < 0) {
    const auto at = std::find(group->to.begin(), group->to.end(), reply.dest) - group->to.begin();
    pace(*order.base, group->at.at(static_cast<size_t>(at)), reply, p.values);
    ++answered_directly_;
  }
  if (++order.answered == workers_.size()) distribute_.erase(d);
  return true;
}

void PsProtocol::pace(Clock::time_point base, double at_s, const WireHeader& h,
                      const std::vector<float>& values) {
  const auto due = base + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(std::max(0.0, at_s)));
  paced_.emplace(due, PacedSend{h, values});
  send_due();
}

void PsProtocol::send_due() {
  const auto now = Clock::now();
  while (!paced_.empty() && paced_.begin()->first <= now) {
    const PacedSend& s = paced_.begin()->second;
    transfer_->send(s.header.dest, s.header, {}, s.values);
    paced_.erase(paced_.begin());
  }
}

std::chrono::milliseconds PsProtocol::paced_timeout() const {
  using std::chrono::milliseconds;
  if (paced_.empty()) return milliseconds(-1);
  // Rounded up: a wake-up before the send is due would find nothing to do.
  const auto left = paced_.begin()->first - Clock::now();
  return std::max(milliseconds(0), std::chrono::ceil<milliseconds>(left));
}

void PsProtocol::on_distributed(Received r) {
  const uint64_t clock = r.header.iteration;
  held_models_[clock] = std::move(r);
  forward(clock);
}

void PsProtocol::forward(uint64_t clock) {
  const auto to = forward_to_.find(clock);
  const auto model = held_models_.find(clock);
  if (to == forward_to_.end() || model == held_models_.end()) return;  // the other is on its way
  Received r = std::move(model->second);
  const std::vector<int> nodes = std::move(to->second);
  held_models_.erase(model);
  forward_to_.erase(to);
  r.header.flags = static_cast<uint8_t>(r.header.flags & ~kToDistributor);
  bool self = false;
  for (int node : nodes) {
    if (node == self_) {
      self = true;
      continue;
    }
    WireHeader h = r.header;
    h.origin = self_;
    h.dest = node;
    transfer_->send(node, h, r.keys, r.values);
    ++forwarded_;
  }
  if (self) {
    ++kept_;
    on_params(r);
  }
}

}  // namespace testbed
