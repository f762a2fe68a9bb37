// MLfabric-S's model distribution (Sec. 10.3) on the parameter server's nodes (mlfabric_policy.h):
// the controller plans, for each clock, which workers the server answers itself and which
// get the model from a distributor on a worker's node; the server sends the distributors
// one copy each (the last group's first, as planned) before its direct answers, and drops
// its answers to the workers a distributor serves; a distributor passes its copy on, its
// own worker last, so forwarding never waits for a computation to start.
// Only whole-model answers (dense pulls) are distributed: a sparse pull asks for keys of its
// own, which no other worker's answer carries.
// MLfabric-A's pulls come at any time: the server holds them for the batching interval and
// answers each batch with one version, as the controller plans it (close_pull_batch).
#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

#include "agent/contracts/mlfabric/mlfabric_events.h"
#include "agent/protocols/mlfabric/mlfabric_policy.h"
#include "agent/transport/wire.h"

namespace testbed {

void MlfabricPolicy::distribution_command(const std::string& verb, const nlohmann::json& cmd) {
  // Batches and clocks share the distributors' books: one run uses one of them.
  if (cmd.contains("batch") != (pull_batch_interval_.count() > 0))
    throw std::runtime_error("a " + verb + " by " + (cmd.contains("batch") ? "batch" : "clock") +
                             " in a run that distributes by " +
                             (pull_batch_interval_.count() > 0 ? "batch" : "clock"));
  if (cmd.contains("batch")) {  // MLfabric-A
    const uint64_t batch = cmd.at("batch").get<uint64_t>();
    if (verb == "distribute") return answer_pull_batch(batch, cmd.at("groups"));
    forward_to_[batch] = cmd.at("to").get<std::vector<int>>();
    forward_clocks_[batch] = cmd.at("clocks").get<std::vector<uint64_t>>();
    if (forward_clocks_[batch].size() != forward_to_[batch].size())
      throw std::runtime_error("a forward names " + std::to_string(forward_to_[batch].size()) +
                               " workers and " + std::to_string(forward_clocks_[batch].size()) +
                               " clocks");
    return forward(batch);
  }
  const uint64_t clock = cmd.at("clock").get<uint64_t>();
  if (verb == "distribute") {  // to the server
    if (!core_.shard())
      throw std::runtime_error("a distribution plan for node " + std::to_string(self_) +
                               ", which serves no shard");
    DistributionOrder& d = distribute_[clock];
    for (const auto& g : cmd.at("groups"))
      d.groups.push_back({g.at("via").get<int>(), g.at("to").get<std::vector<int>>(),
                          g.at("at").get<std::vector<double>>()});
    if (const auto held = awaiting_plan_.find(clock); held != awaiting_plan_.end()) {
      const std::vector<PullReply> replies = std::move(held->second);
      awaiting_plan_.erase(held);
      core_.send_replies(replies);
    }
    return;
  }
  forward_to_[clock] = cmd.at("to").get<std::vector<int>>();  // to a distributor
  forward(clock);
}

bool MlfabricPolicy::awaits_plan(const PullReply& p) const {
  return distribution_ && !p.latest && p.dense && p.clock > 0 && !distribute_.count(p.clock);
}

// The group whose workers get `node`'s answer of this clock; null when unplanned.
const MlfabricPolicy::DistributionGroupOrder* MlfabricPolicy::group_of(uint64_t clock,
                                                                       int node) const {
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
bool MlfabricPolicy::send_planned(const PullReply& p, const WireHeader& reply) {
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
  if (++order.answered == core_.workers().size()) distribute_.erase(d);
  return true;
}

void MlfabricPolicy::pace(Clock::time_point base, double at_s, const WireHeader& h,
                          const std::vector<float>& values) {
  const auto due = base + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(std::max(0.0, at_s)));
  paced_.emplace(due, PacedSend{h, values});
  send_due();
}

void MlfabricPolicy::send_due() {
  const auto now = Clock::now();
  while (!paced_.empty() && paced_.begin()->first <= now) {
    const PacedSend& s = paced_.begin()->second;
    core_.transfer().send(s.header.dest, s.header, {}, s.values);
    paced_.erase(paced_.begin());
  }
}

std::chrono::milliseconds MlfabricPolicy::paced_timeout() const {
  using std::chrono::milliseconds;
  if (paced_.empty()) return milliseconds(-1);
  // Rounded up: a wake-up before the send is due would find nothing to do.
  const auto left = paced_.begin()->first - Clock::now();
  return std::max(milliseconds(0), std::chrono::ceil<milliseconds>(left));
}

void MlfabricPolicy::on_distributed(Received r) {
  const uint64_t clock = r.header.iteration;
  held_models_[clock] = std::move(r);
  forward(clock);
}

void MlfabricPolicy::forward(uint64_t clock) {
  const auto to = forward_to_.find(clock);
  const auto model = held_models_.find(clock);
  if (to == forward_to_.end() || model == held_models_.end()) return;  // the other is on its way
  Received r = std::move(model->second);
  const std::vector<int> nodes = std::move(to->second);
  held_models_.erase(model);
  forward_to_.erase(to);
  // MLfabric-A's batch: each worker's answer names its own pull's clock.
  std::vector<uint64_t> clocks(nodes.size(), clock);
  if (const auto c = forward_clocks_.find(clock); c != forward_clocks_.end()) {
    clocks = std::move(c->second);
    forward_clocks_.erase(c);
  }
  r.header.flags = static_cast<uint8_t>(r.header.flags & ~kToDistributor);
  std::optional<uint64_t> self;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] == self_) {
      self = clocks[i];
      continue;
    }
    WireHeader h = r.header;
    h.origin = self_;
    h.dest = nodes[i];
    h.iteration = clocks[i];
    core_.transfer().send(nodes[i], h, r.keys, r.values);
    ++forwarded_;
  }
  if (self) {
    ++kept_;
    r.header.iteration = *self;
    core_.deliver_params(r);
  }
}

// A dense pull joins the open batch; the shard is read once per batch, when its plan comes
// (answer_pull_batch), not once per pull.
void MlfabricPolicy::hold_pull(int worker, uint64_t clock) {
  if (pull_batch_.empty()) pull_batch_due_ = Clock::now() + pull_batch_interval_;
  pull_batch_.emplace_back(core_.workers()[static_cast<size_t>(worker)], clock);
}

// Every batching interval the pulls held go to the controller as one batch.
void MlfabricPolicy::close_pull_batch() {
  if (pull_batch_.empty() || Clock::now() < pull_batch_due_) return;
  const uint64_t batch = next_pull_batch_++;
  PullBatch held{batch, {}, {}};
  for (const auto& [node, clock] : pull_batch_) {
    held.workers.push_back(static_cast<size_t>(node));
    held.clocks.push_back(clock);
  }
  pull_batches_[batch] = std::move(pull_batch_);
  pull_batch_.clear();
  core_.reply(to_json(held));
}

// The batch's plan: one version of the model (what is applied now) to every pull of the
// batch, the distributors' copies and the direct answers at the plan's times from now.
void MlfabricPolicy::answer_pull_batch(uint64_t batch, const nlohmann::json& groups) {
  const auto held = pull_batches_.find(batch);
  if (held == pull_batches_.end() || !core_.shard())
    throw std::runtime_error("a plan for pull batch " + std::to_string(batch) + ", which node " +
                             std::to_string(self_) + " does not hold");
  std::map<int, uint64_t> clock_of(held->second.begin(), held->second.end());
  size_t planned = 0;
  WireHeader h;
  h.kind = WireKind::kParams;
  h.flags = kDense;
  h.origin = self_;
  h.chunk = static_cast<uint32_t>(core_.shard_index());
  h.tag = core_.shard()->updates_applied();
  const std::vector<float> values = core_.shard()->values();
  const auto base = Clock::now();
  for (const auto& g : groups) {
    const int via = g.at("via").get<int>();
    const auto to = g.at("to").get<std::vector<int>>();
    const auto at = g.at("at").get<std::vector<double>>();
    planned += to.size();
    if (via >= 0) {
      WireHeader copy = h;
      copy.flags = static_cast<uint8_t>(kDense | kToDistributor);
      copy.dest = via;
      copy.iteration = batch;
      pace(base, at.at(0), copy, values);
      ++to_distributors_;
      continue;
    }
    for (size_t i = 0; i < to.size(); ++i) {
      const auto clock = clock_of.find(to[i]);
      if (clock == clock_of.end())
        throw std::runtime_error("pull batch " + std::to_string(batch) + "'s plan names node " +
                                 std::to_string(to[i]) + ", which it does not hold");
      WireHeader answer = h;
      answer.dest = to[i];
      answer.iteration = clock->second;
      pace(base, at.at(i), answer, values);
      ++answered_directly_;
    }
  }
  if (planned != clock_of.size())
    throw std::runtime_error("pull batch " + std::to_string(batch) + "'s plan covers " +
                             std::to_string(planned) + " of its " +
                             std::to_string(clock_of.size()) + " pulls");
  pull_batches_.erase(held);
}

}  // namespace testbed
