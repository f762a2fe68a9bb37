#include "controller/training/mlfabric/update_scheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace testbed {

UpdateScheduler::UpdateScheduler(SchedulerOptions options, AggregationPaths paths,
                                 AggregationPaths to_replica)
    : o_(options),
      paths_(std::move(paths)),
      to_replica_(std::move(to_replica)),
      rng_(options.seed),
      per_worker_ordered_(paths_.to_server.size(), 0),
      per_worker_dropped_(paths_.to_server.size(), 0) {
  next_seq_ = o_.first_seq;
  o_.aggregators = std::min(o_.aggregators, paths_.to_server.size());
  if (o_.aggregators > 0 && paths_.between.size() != paths_.to_server.size())
    throw std::invalid_argument("aggregation needs the paths between the workers");
  if (o_.div_max && to_replica_.to_server.size() != paths_.to_server.size())
    throw std::invalid_argument("replication needs every worker's path to the replica");
  if (o_.div_max && o_.aggregators > 0) to_replica_.between = paths_.between;
}

void UpdateScheduler::observe_rates(std::map<size_t, double> bits_per_s, double now_s) {
  if (reports_.empty() && network_.rates().empty()) {
    network_.set_rates(std::move(bits_per_s));  // the first report is the lab as it starts
    return;
  }
  // Only a change is reported: the monitor reads the same rates most of the time.
  const auto& latest = reports_.empty() ? network_.rates() : reports_.back().second;
  if (bits_per_s != latest) reports_.emplace_back(now_s, std::move(bits_per_s));
}

void UpdateScheduler::announce(int worker, uint64_t version, double bytes, double now_s,
                               uint64_t clock, double norm) {
  const auto w = static_cast<size_t>(worker);
  if (w >= paths_.to_server.size()) throw std::invalid_argument("an update from an unknown worker");
  waiting_.push_back({worker, version, bytes, paths_.to_server[w], announced_++, clock});
  if (o_.div_max) announced_norms_[{worker, clock}] = norm;
  if (batch_timer_) return;
  // Batches fall every interval from the first announcement; one with nothing to order
  // is skipped, so the timer only runs while updates wait.
  if (!epoch_s_) epoch_s_ = now_s;
  batch_timer_ = true;
  next_batch_s_ =
      *epoch_s_ + std::ceil((now_s - *epoch_s_) / o_.batch_interval_s) * o_.batch_interval_s;
}

// The paper pre-assigns aggregators to groups at random: k distinct workers' nodes, drawn
// anew for every batch.
std::vector<int> UpdateScheduler::pick_aggregators() {
  std::vector<int> all(paths_.to_server.size());
  for (size_t w = 0; w < all.size(); ++w) all[w] = static_cast<int>(w);
  std::shuffle(all.begin(), all.end(), rng_);
  all.resize(o_.aggregators);
  return all;
}

void UpdateScheduler::run_batch(double now_s) {
  ++batches_;
  network_.forget_before(now_s);
  if (o_.hold_overdue) {
    for (int sender : arrivals_.overdue(now_s)) {
      const LinkPath& path = paths_.to_server[static_cast<size_t>(sender)];
      double rate = std::numeric_limits<double>::infinity();
      for (size_t l : path)
        if (const auto r = network_.rates().find(l); r != network_.rates().end())
          rate = std::min(rate, r->second);
      if (!std::isfinite(rate) || rate <= 0) continue;  // unshaped, or a dead link holds anyway
      network_.reserve(path, rate / 8 * o_.batch_interval_s, now_s);
      ++overdue_holds_;
    }
  }
  // Alg. 2 orders on a tentative copy of the network; Alg. 3 then places the ordered
  // updates from the network as it was, and its choice is what gets reserved.
  LinkReservations tentative = network_;
  const BatchOrder b =
      o_.synchronous
          ? list_updates(std::move(waiting_), next_seq_, tentative, now_s)
          : order_updates(std::move(waiting_), next_seq_, o_.delay_bound, tentative, now_s);
  waiting_.clear();
  std::vector<AggregationInput> inputs;
  for (const auto& u : b.ordered) inputs.push_back({u.update.worker, u.update.bytes});
  const AggregationPlan plan =
      plan_aggregation(inputs, pick_aggregators(), paths_, o_.model_bytes, network_, now_s);
  if (!b.ordered.empty()) server_has_all_s_ = std::max(server_has_all_s_, plan.end_s);
  const uint64_t first_seq = next_seq_;
  // The place at which each update reaches the server's model: its own when sent directly,
  // its group's last when summed (the sum applies once all of it is there).
  std::vector<uint64_t> commits_at(b.ordered.size());
  for (const auto& g : plan.groups) {
    for (size_t i = g.first; i < g.first + g.count; ++i)
      commits_at[i] = first_seq + (g.aggregator < 0 ? i : g.first + g.count - 1);
    bytes_to_server_ += g.bytes;
    if (g.aggregator < 0) continue;
    arrivals_.planned(first_seq + g.first, g.to_server.end_s, g.aggregator);
    ++groups_;
    aggregated_ += g.count;
    told_now_.push_back(
        {g.aggregator, SchedulerDecision::Word::kAggregate, 0, first_seq + g.first, -1, g.count});
  }
  std::optional<double> hold;  // the batch's last server transfer waits for the replica
  if (o_.div_max) {
    std::vector<ReplicaCandidate> fresh;
    for (size_t i = 0; i < b.ordered.size(); ++i)
      fresh.push_back({b.ordered[i].update.worker, first_seq + i, b.ordered[i].update.bytes,
                       b.ordered[i].update.clock});
    hold =
        replicate(std::move(fresh), first_seq + b.ordered.size(), plan.end_s, *o_.div_max, now_s);
    if (hold && !b.ordered.empty()) ++held_last_;
    if (flushing_) flush_replica(now_s);
  }
  for (size_t i = 0; i < b.ordered.size(); ++i) {
    const auto& u = b.ordered[i];
    const uint64_t seq = next_seq_++;
    double start = plan.transfers[i].start_s;
    if (hold && i + 1 == b.ordered.size()) start = std::max(start, *hold);
    if (plan.to[i] < 0)  // straight to the server: its transfer's end, as held back
      arrivals_.planned(seq, plan.transfers[i].end_s + (start - plan.transfers[i].start_s),
                        u.update.worker);
    // The server may apply place p only once the replica has p + 1 - Div_max.
    const uint64_t gate =
        o_.div_max && commits_at[i] + 1 > *o_.div_max ? commits_at[i] + 1 - *o_.div_max : 0;
    ++delays_[u.applies_to - std::min(u.applies_to, u.update.version)];
    ++per_worker_ordered_[static_cast<size_t>(u.update.worker)];
    if (const auto n = announced_norms_.find({u.update.worker, u.update.clock});
        n != announced_norms_.end()) {
      norms_.push_back(n->second);
      announced_norms_.erase(n);
    }
    bytes_ordered_ += u.update.bytes;
    starts_.emplace(start, SchedulerDecision{u.update.worker, SchedulerDecision::Word::kSend,
                                             u.update.clock, seq, plan.to[i], 1, false, gate});
  }
  for (const auto& d : b.dropped) {
    ++dropped_[d.why];
    announced_norms_.erase({d.update.worker, d.update.clock});
    ++per_worker_dropped_[static_cast<size_t>(d.update.worker)];
    told_now_.push_back(
        {d.update.worker, SchedulerDecision::Word::kDrop, d.update.clock, 0, -1, 0});
  }
}

DistributionPlan UpdateScheduler::plan_distribution_after_updates(
    const std::vector<int>& distributors, const DistributionPaths& paths, double model_bytes,
    double now_s) {
  return plan_distribution(distributors, paths, model_bytes, network_,
                           std::max(now_s, server_has_all_s_));
}

std::vector<SchedulerDecision> UpdateScheduler::poll(double now_s) {
  while (!reports_.empty() && reports_.front().first + o_.report_lag_s <= now_s) {
    network_.set_rates(std::move(reports_.front().second));
    reports_.pop_front();
  }
  if (batch_timer_ && now_s >= next_batch_s_) {
    batch_timer_ = false;
    // The scheduler's own time is reported, never used: a batch that takes longer than
    // the batching interval delays every word after it.
    const auto began = std::chrono::steady_clock::now();
    run_batch(now_s);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    batch_seconds_ += took;
    slowest_batch_s_ = std::max(slowest_batch_s_, took);
  }
  std::vector<SchedulerDecision> out = std::move(told_now_);
  told_now_.clear();
  // Sends held for the replica go first, in the order they fell due.
  for (auto it = gated_.begin(); it != gated_.end();) {
    if (it->second.gate > replica_applied_) {
      ++it;
      continue;
    }
    gate_wait_s_ += now_s - it->first;
    out.push_back(it->second);
    it = gated_.erase(it);
  }
  while (!starts_.empty() && starts_.begin()->first <= now_s) {
    const SchedulerDecision d = starts_.begin()->second;
    starts_.erase(starts_.begin());
    if (d.gate > replica_applied_) {
      ++gate_waits_;
      gated_.emplace_back(now_s, d);
    } else {
      out.push_back(d);
    }
  }
  return out;
}

uint64_t UpdateScheduler::unsent_places() const {
  uint64_t n = 0;
  for (const auto& [at, d] : starts_) n += d.word == SchedulerDecision::Word::kSend;
  for (const auto& [at, d] : gated_) n += d.word == SchedulerDecision::Word::kSend;
  return n;
}

double UpdateScheduler::next_poll_s() const {
  double t = std::numeric_limits<double>::infinity();
  if (batch_timer_) t = next_batch_s_;
  if (!starts_.empty()) t = std::min(t, starts_.begin()->first);
  if (!reports_.empty()) t = std::min(t, reports_.front().first + o_.report_lag_s);
  return t;
}

nlohmann::json UpdateScheduler::stats() const {
  uint64_t dropped = 0, max_delay = 0;
  for (const auto& [why, n] : dropped_) dropped += n;
  nlohmann::json delays = nlohmann::json::object();
  for (const auto& [d, n] : delays_) {
    delays[std::to_string(d)] = n;
    max_delay = std::max(max_delay, d);
  }
  return {{"announced", announced_},
          {"ordered", next_seq_},
          {"dropped", dropped},
          {"dropped_by", dropped_},
          {"drop_fraction", announced_ ? static_cast<double>(dropped) / announced_ : 0.0},
          {"batches", batches_},
          {"batch_compute_s", batch_seconds_},
          {"slowest_batch_s", slowest_batch_s_},
          {"delay_bound", o_.delay_bound},
          {"max_delay", max_delay},
          {"delays", delays},
          {"ordered_per_worker", per_worker_ordered_},
          {"replication", replication_stats()},
          {"aggregation",
           {{"aggregators", o_.aggregators},
            {"groups", groups_},
            {"aggregated_updates", aggregated_},
            {"planned_bytes_to_server", bytes_to_server_},
            {"ordered_bytes", bytes_ordered_}}},
          {"dropped_per_worker", per_worker_dropped_},
          {"arrivals", arrivals_.stats()},
          {"overdue_holds", overdue_holds_}};
}

LinkPath hop_path(const std::vector<std::pair<int, int>>& directions, int from, int to) {
  // Breadth-first over nodes; each node remembers the link it was reached by.
  std::map<int, size_t> via;
  std::vector<int> frontier{from}, seen{from};
  while (!frontier.empty() && std::find(seen.begin(), seen.end(), to) == seen.end()) {
    std::vector<int> next;
    for (int n : frontier) {
      for (size_t l = 0; l < directions.size(); ++l) {
        const auto [a, b] = directions[l];
        if (a != n || std::find(seen.begin(), seen.end(), b) != seen.end()) continue;
        seen.push_back(b);
        via[b] = l;
        next.push_back(b);
      }
    }
    frontier = std::move(next);
  }
  if (from != to && !via.count(to))
    throw std::invalid_argument("no path from node " + std::to_string(from) + " to node " +
                                std::to_string(to));
  LinkPath path;
  for (int n = to; n != from; n = directions[via[n]].first) path.insert(path.begin(), via[n]);
  return path;
}

nlohmann::json mlfabric_choices() {
  return {
      {"synchronous_list",
       "mlfabric-s: each batch's updates reach Alg. 3 as a list in shortest-transfer-first "
       "order (the paper gives no order for synchronous SGD), none dropped; the server sums "
       "a clock's W places, direct or aggregated, and applies them together"},
      {"distribution",
       "mlfabric-s distributes the model of each clock through distributors (Sec. 10.3): as "
       "many as the aggregators, on workers' nodes, drawn anew each clock; planned once every "
       "worker was told to send its update, on the rates alone (no update transfer is under "
       "way when the model goes out); direct workers are those the server reaches soonest; "
       "only a dense model (a sparse pull asks keys of its own)"},
      {"synchronous_replica", "mlfabric-s runs without a replica: Sec. 7.2 evaluates none for it"},
      {"delay_bound_default",
       "the number of workers: the paper's tau_max of 30 with its 30 workers (Sec. 7)"},
      {"deadline_positions",
       "Eq. 9's deadline is compared with the update's place among the updates ordered, not "
       "with Alg. 2's loop index: a dropped update applies no version"},
      {"past_deadline",
       "an update whose deadline is already past (two due at one place, or a model older "
       "than the batch allows) is dropped at its worker"},
      {"scheduled_transfers",
       "updates (worker to server) are ordered; the models that answer pulls are planned and "
       "reserved in the same network (mlfabric-a: per batch of pulls; mlfabric-s: per clock); "
       "a pull request is a header, not reserved"},
      {"pull_batches",
       "mlfabric-a: the server holds pulls for the 100 ms batching interval and answers a "
       "batch with one version (Sec. 10.3); its distributors are drawn among the batch's "
       "workers, as many as the aggregators at most, and the plan starts when the batch "
       "reaches the scheduler"},
      {"dense_messages",
       "a message naming more than half of a shard's keys goes dense (every value, no key): "
       "mf's updates and pulls do"},
      {"server_link",
       "the server's and replica's links are not redrawn (the paper's dedicated 10 Gbit/s "
       "machine, Sec. 7); mlfabric-cluster-nX-server-redrawn.yaml redraws them, recorded in "
       "mlfabric.server_link"},
      {"push_returns_at_once",
       "a worker's push returns at once (Table 1): it pulls the model and computes its next "
       "update while the scheduler holds the last one back, so a worker may have several "
       "announced; the delay bound drops those that grow too old"},
      {"batch_timer",
       "batches fall every 100 ms (the batching interval) from the first "
       "update announced; an update announced on a batch's instant joins it"},
      {"rates",
       "the network monitor reads the lab's configured rates every 100 ms and they "
       "reach the scheduler t_lag = 0.2 s after they were read"},
      {"aggregators_default",
       "one aggregator on every worker's node (the paper co-hosts them with the workers "
       "and does not say how many), drawn in a random order for each batch"},
      {"aggregation_groups",
       "t_max starts when the server's link is next free (not 0), a group is never empty, the "
       "last aggregator takes what is left, the last group's sum counts in the time "
       "compared, and a tie goes to sending more updates directly"},
      {"aggregate_start",
       "an aggregator sends its sum once every update of its group has arrived; the sum of "
       "dense updates is one update's size, a sparse sum touching over half the keys goes dense"},
      {"aggregator_cpu",
       "aggregators share their node's CPU with its worker (the paper gives them a core of "
       "their own)"},
      {"paths",
       "each worker's path to the server is the fewest hops over the lab's links, as "
       "the lab routes"},
      {"div_max_unit",
       "Div_max counts updates, the server's lead over the replica (Sec. 7.3 measures it so); "
       "the paper's norm bound (Eq. 11) is reported beside it"},
      {"replica_aggregators",
       "the replica's aggregators (the paper's k') are as many as the server's, on the "
       "workers' nodes, drawn apart from them for each batch"},
      {"replica_hold",
       "as Sec. 5.3, only a batch's last server transfer is held back for the replica, and "
       "its reservation stays where Alg. 3 put it; at run time any send to the server waits "
       "until the replica reports the places the bound needs, so the bound holds when the "
       "planned times run late"},
      {"replica_copies",
       "a worker keeps its copy of each update it sent to the server until it is told to "
       "replicate it; after the last batch every punted update is sent, so the replica ends "
       "with the server's model"}};
}

}  // namespace testbed
