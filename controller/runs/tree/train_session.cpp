#include "controller/runs/tree/train_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <stdexcept>

#include "agent/contracts/tree_messages.h"
#include "agent/jobs/logistic_regression.h"
#include "agent/protocols/tree/sync_policy_json.h"
#include "controller/observe/peer_refusals.h"
#include "controller/options/usage_error.h"
#include "controller/runs/iteration_progress.h"
#include "controller/training/netstorm/awareness.h"
#include "controller/training/strategies.h"

namespace testbed {
namespace {

constexpr int kSamplesPerNode = 32;  // batch size per data center (NetStorm Sec. IX-A)

std::vector<int> roots_of(const SyncPolicy& p) {
  std::vector<int> roots;
  for (const auto& t : p.trees) roots.push_back(t.root);
  return roots;
}

uint64_t total(const std::vector<IterationDone>& done, uint64_t IterationDone::*count) {
  uint64_t sum = 0;
  for (const auto& d : done) sum += d.*count;
  return sum;
}

// The replies were checked whole as they arrived (decode_agent_reply): reading them again
// cannot fail.
std::vector<IterationDone> iterations_done(const std::vector<nlohmann::json>& replies) {
  std::vector<IterationDone> done;
  for (const auto& r : replies)
    done.push_back(iteration_done_from_json(r, replies.size(), UINT64_MAX));
  return done;
}

// Every node must hold the same model: the checksums agree, a diverged one (NaN) with
// another diverged one.
bool same_checksum(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

}  // namespace

TrainSession::TrainSession(const TrainOptions& options, AgentGroup& agents,
                           std::vector<std::string> names, std::vector<std::string> endpoints,
                           std::vector<LiveDirection> directions, std::ostream& progress,
                           MetricsSink& metrics)
    : o_(options),
      agents_(agents),
      names_(std::move(names)),
      endpoints_(std::move(endpoints)),
      directions_(std::move(directions)),
      progress_(progress),
      metrics_(metrics),
      to_(names_.size()),
      from_(names_.size()) {
  for (const auto& d : directions_) {
    to_[static_cast<size_t>(index(d.from))].push_back(index(d.to));
    from_[static_cast<size_t>(index(d.to))].push_back(index(d.from));
  }
  graph_.nodes = static_cast<int>(names_.size());
  graph_.mbit.assign(names_.size(), std::vector<double>(names_.size(), 0));
}

int TrainSession::index(const std::string& name) const {
  return static_cast<int>(std::find(names_.begin(), names_.end(), name) - names_.begin());
}

void TrainSession::setup() {
  TreeSetup setup;
  setup.van.endpoints = endpoints_;
  setup.van.secret = agents_.secret();
  setup.van.van_curve = agents_.van_curve();
  // A chunk (at most the model) or a probe's filler.
  setup.van.max_message = message_bound(std::max<uint64_t>(
      std::max<uint64_t>(o_.chunk, o_.elements) * sizeof(float), o_.probe_bytes));
  setup.chunk_elements = o_.chunk;
  setup.model_elements = o_.elements;
  setup.seed = o_.seed;
  if (o_.logreg) {
    const LogRegConfig job;
    setup.logreg = TreeLogRegJob{static_cast<int>(names_.size()), job.features,
                                 job.samples_per_node, job.learning_rate};
  }
  // Each node learns its physical in-neighbours: chunks from them measure a link. Chunks of
  // at least half the standard size count (PROBE_CHUNK_SIZE): the short tail chunk and
  // tiny tensors would measure message overheads rather than the link.
  setup.probe_bytes = strategy_traits(o_.strategy).aware ? o_.chunk * sizeof(float) / 2 : 0;
  for (size_t n = 0; n < names_.size(); ++n) {
    setup.neighbors = {from_[n].begin(), from_[n].end()};
    agents_.send(n, to_json(setup));
  }
  agents_.gather(NodeReady::kEvent);
}

void TrainSession::measure() {
  if (o_.oracle) {
    for (const auto& d : directions_)
      graph_.mbit[index(d.from)][index(d.to)] = d.params.rate.bits_per_s / 1e6;
    return;
  }
  auto to = to_, from = from_;
  if (!o_.probe_link.empty()) {
    const auto colon = o_.probe_link.find(':');
    const int a = index(o_.probe_link.substr(0, colon));
    const int b =
        colon == std::string::npos ? graph_.nodes : index(o_.probe_link.substr(colon + 1));
    if (a >= graph_.nodes || b >= graph_.nodes ||
        std::find(to[a].begin(), to[a].end(), b) == to[a].end()) {
      throw UsageError("--probe-link " + o_.probe_link +
                       ": expected A:B, two nodes joined by a link");
    }
    for (auto& v : to) v.clear();
    for (auto& v : from) v.clear();
    to[static_cast<size_t>(a)] = {b};
    from[static_cast<size_t>(b)] = {a};
  }
  for (size_t n = 0; n < names_.size(); ++n) {
    agents_.send(n, to_json(ProbeLinks{to[n], from[n], o_.probe_bytes,
                                       static_cast<uint32_t>(o_.probe_count)}));
  }
  const auto probed = agents_.gather(LinksProbed::kEvent);
  for (size_t n = 0; n < names_.size(); ++n) {
    for (const auto& [peer, mbit] : links_probed_from_json(probed[n], names_.size()).mbit)
      graph_.mbit[peer][n] = mbit;
  }
  publish_measured();
}

void TrainSession::publish_measured() {
  metrics_.publish(
      {{"event", "measured"}, {"strategy", o_.strategy}, {"nodes", names_}, {"mbit", graph_.mbit}});
}

void TrainSession::publish_iteration(double seconds, const std::vector<IterationDone>& done) {
  double total_share = 0;
  for (const auto& t : policy_.trees) total_share += t.share;
  nlohmann::json shares = nlohmann::json::object();
  for (const auto& name : names_) shares[name] = 0.0;
  for (const auto& t : policy_.trees) {
    shares[names_[static_cast<size_t>(t.root)]] =
        shares[names_[static_cast<size_t>(t.root)]].get<double>() + t.share / total_share;
  }
  // The agents count from their start; the event carries what this iteration added.
  const auto delta = [&](size_t n, uint64_t IterationDone::*count) {
    return done[n].*count - (last_done_.empty() ? 0 : last_done_[n].*count);
  };
  const auto bytes_delta = [&](size_t n, std::map<size_t, uint64_t> VanCounters::*by_peer) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [peer, bytes] : done[n].counters.*by_peer) {
      uint64_t before = 0;
      if (!last_done_.empty()) {
        const auto& last = last_done_[n].counters.*by_peer;
        if (const auto it = last.find(peer); it != last.end()) before = it->second;
      }
      out[names_[peer]] = bytes - before;
    }
    return out;
  };
  nlohmann::json nodes = nlohmann::json::object();
  for (size_t n = 0; n < names_.size(); ++n) {
    nodes[names_[n]] = {{"seconds", done[n].seconds},
                        {"chunks_sent", delta(n, &IterationDone::chunks_sent)},
                        {"aux_chunks_sent", delta(n, &IterationDone::aux_chunks_sent)},
                        {"chunks_forwarded", delta(n, &IterationDone::chunks_forwarded)},
                        {"bytes_sent", bytes_delta(n, &VanCounters::bytes_sent)},
                        {"bytes_received", bytes_delta(n, &VanCounters::bytes_received)}};
  }
  metrics_.publish({{"event", "iteration"},
                    {"strategy", o_.strategy},
                    {"seconds", seconds},
                    {"samples_per_node", kSamplesPerNode},
                    {"policy", {{"version", policy_.version}, {"shares", shares}}},
                    {"nodes", nodes}});
}

void TrainSession::train() {
  StrategyOptions options;
  options.aux = o_.aux;
  if (!o_.server.empty())  // ps@NODE: the star's hub fixed (checked against the lab's nodes)
    options.ps_node =
        static_cast<int>(std::find(names_.begin(), names_.end(), o_.server) - names_.begin());
  policy_ = build_policy(o_.strategy, graph_, options);
  policy_.version = 1;
  PassiveAwareness awareness(policy_, o_.update_time_s);
  uint64_t aux_before = 0, chunks_before = 0;
  const auto train_start = std::chrono::steady_clock::now();
  started_unix_s_ =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  agents_.set_budget(o_.max_seconds);
  for (int it = 0; it < o_.iterations; ++it) {
    // --max-seconds: under dynamics every strategy then spans the same network states,
    // however fast it iterates; the iteration under way when the budget ends completes.
    if (o_.max_seconds > 0 && it > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - train_start).count() >=
            o_.max_seconds)
      break;
    policy_history_.push_back(
        {{"iteration", it}, {"version", policy_.version}, {"roots", roots_of(policy_)}});
    const auto start = std::chrono::steady_clock::now();
    const nlohmann::json policy = to_json(policy_);
    for (size_t n = 0; n < names_.size(); ++n) {
      agents_.send(
          n, to_json(IterateCommand{static_cast<uint64_t>(it),
                                    static_cast<uint64_t>(compute_ms(o_, static_cast<int>(n),
                                                                     static_cast<uint64_t>(it))),
                                    policy}));
    }
    std::vector<IterationDone> done;
    try {
      done = iterations_done(agents_.gather(IterationDone::kEvent));
    } catch (const StalledPastBudget&) {
      // The iteration under way cannot complete: the run ends at its budget without it.
      agents_.clear_budget_end();
      ended_stalled_ = true;
      break;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (size_t n = 1; n < done.size(); ++n) {
      if (!same_checksum(done[n].checksum, done[0].checksum)) {
        throw std::runtime_error("nodes " + names_[0] + " and " + names_[n] +
                                 " disagree on the model after iteration " + std::to_string(it));
      }
    }
    times_.push_back(seconds);
    publish_iteration(seconds, done);
    last_done_ = done;
    if (o_.logreg) {
      double loss = 0;
      for (const auto& d : done) loss += d.loss.value_or(std::nan(""));
      losses_.push_back(loss / static_cast<double>(done.size()));
    }
    const uint64_t aux = total(done, &IterationDone::aux_chunks_sent),
                   chunks = total(done, &IterationDone::chunks_sent);
    IterationProgress p;
    p.iteration = static_cast<uint64_t>(it) + 1;
    p.iterations = static_cast<uint64_t>(o_.iterations);
    p.strategy = o_.strategy;
    p.seconds = seconds;
    p.samples_per_s = kSamplesPerNode * static_cast<double>(names_.size()) / seconds;
    p.policy_version = policy_.version;
    if (policy_.aux && chunks > chunks_before)
      p.aux_share =
          static_cast<double>(aux - aux_before) / static_cast<double>(chunks - chunks_before);
    if (o_.json) {
      write_json_line(progress_, p);
    } else {
      progress_ << "iteration " << p.iteration << "/" << p.iterations << "  " << p.strategy
                << " (policy v" << *p.policy_version << ")  " << std::fixed << std::setprecision(2)
                << p.seconds << " s  " << std::setprecision(1) << *p.samples_per_s << " samples/s";
      if (p.aux_share) progress_ << "  aux " << 100.0 * *p.aux_share << "%";
      progress_ << "\n" << std::flush;
    }
    record_edges(it, done,
                 chunks > chunks_before ? static_cast<double>(aux - aux_before) /
                                              static_cast<double>(chunks - chunks_before)
                                        : 0.0);
    aux_before = aux;
    chunks_before = chunks;
    if (strategy_traits(o_.strategy).aware) {
      for (size_t n = 0; n < done.size(); ++n)
        awareness.add_samples(static_cast<int>(n), done[n].link_samples, graph_);
      if (auto next = awareness.maybe_rebuild(graph_, policy_)) policy_ = *next;
      publish_measured();
    }
  }
}

// What each tree edge carried in one iteration, as its receiver timed the chunks (the
// samples awareness learns from): how fast the edges really were, against the policy's
// belief and the configured rates, and how much went on auxiliary paths.
void TrainSession::record_edges(int iteration, const std::vector<IterationDone>& done,
                                double aux_share) {
  nlohmann::json edges = nlohmann::json::array();
  for (size_t n = 0; n < done.size(); ++n) {
    for (const auto& [from, s] : done[n].link_samples) {
      edges.push_back({{"from", names_[from]},
                       {"to", names_[n]},
                       {"chunks", s.count},
                       {"bytes", s.bytes},
                       {"mbit", s.seconds > 0 ? s.bytes * 8 / s.seconds / 1e6 : 0.0}});
    }
  }
  // Chunks from their origin's send to their destination, by route, over all nodes.
  nlohmann::json delivered = nlohmann::json::object();
  for (const auto& [route, of] :
       {std::pair{"primary", &IterationDone::primary}, std::pair{"aux", &IterationDone::aux}}) {
    double count = 0, seconds = 0;
    for (const auto& d : done) {
      count += static_cast<double>((d.*of).count);
      seconds += (d.*of).seconds;
    }
    delivered[route] = {{"chunks", count}, {"mean_s", count > 0 ? seconds / count : 0.0}};
  }
  edge_history_.push_back({{"iteration", iteration},
                           {"aux_share", aux_share},
                           {"edges", edges},
                           {"delivered", delivered}});
}

double TrainSession::mean_iteration_s() const {
  double sum = 0;
  for (double t : times_) sum += t;
  return times_.empty() ? 0 : sum / static_cast<double>(times_.size());
}

double TrainSession::samples_per_s() const {
  const double mean = mean_iteration_s();
  return mean > 0 ? kSamplesPerNode * static_cast<double>(names_.size()) / mean : 0;
}

nlohmann::json TrainSession::summary(const std::string& lab) const {
  nlohmann::json s = {
      {"lab", lab},
      {"strategy", o_.strategy},
      {"iterations", times_.size()},
      {"iterations_asked", o_.iterations},
      {"max_seconds", o_.max_seconds},
      // How the run ended: its iterations, its budget, or its budget while
      // stalled (the iteration under way then was abandoned; see "stalls").
      {"ended", run_ending(ended_stalled_, static_cast<int>(times_.size()) < o_.iterations)},
      {"train_started_unix_s", started_unix_s_},
      {"mean_iteration_s", mean_iteration_s()},
      {"samples_per_s", samples_per_s()},
      {"samples_per_iteration", kSamplesPerNode * names_.size()},
      {"iteration_s", times_},
      {"model", o_.model.name},
      {"scale", o_.scale},
      {"model_bytes", o_.elements * sizeof(float)},
      {"chunk_elements", o_.chunk},
      {"compute_ms", {{"min", o_.compute_min_ms}, {"max", o_.compute_max_ms}}},
      {"seed", o_.seed},
      {"update_time_s", o_.update_time_s},
      {"knowledge", o_.oracle ? "oracle (configured rates)" : "measured"},
      {"link_mbit", graph_.mbit},
      {"policy", to_json(policy_)},
      {"policy_history", policy_history_},
      {"edge_history", edge_history_}};
  const uint64_t chunks = total(last_done_, &IterationDone::chunks_sent);
  const uint64_t aux = total(last_done_, &IterationDone::aux_chunks_sent);
  s["chunks_sent"] = chunks;
  s["aux_chunks_sent"] = aux;
  s["aux_share"] = chunks ? static_cast<double>(aux) / static_cast<double>(chunks) : 0.0;
  nlohmann::json per_node = nlohmann::json::object();
  for (size_t n = 0; n < names_.size() && n < last_done_.size(); ++n) {
    const auto& d = last_done_[n];
    nlohmann::json sent = nlohmann::json::object(), received = nlohmann::json::object();
    // Per neighbour by name, not index: the results file is read by people and scripts.
    for (const auto& [peer, bytes] : d.counters.bytes_sent) sent[names_[peer]] = bytes;
    for (const auto& [peer, bytes] : d.counters.bytes_received) received[names_[peer]] = bytes;
    per_node[names_[n]] = {{"bytes_sent", sent},
                           {"bytes_received", received},
                           {"chunks_sent", d.chunks_sent},
                           {"aux_chunks_sent", d.aux_chunks_sent},
                           {"chunks_forwarded", d.chunks_forwarded},
                           {"last_iteration_s", d.seconds}};
  }
  s["nodes"] = per_node;
  s["node_names"] = names_;
  std::vector<VanCounters> counters;
  for (const auto& d : last_done_) counters.push_back(d.counters);
  s["peers"] = peer_refusals(counters, names_);
  if (o_.logreg) {
    // Every node holds the same weights (the checksums agreed); they must match a
    // single-process run. Each tree adds the nodes' float gradients in its own order, so
    // they differ from the double-precision reference by rounding only: 1e-4 bounds it
    // for this job's magnitudes and iteration counts.
    LogRegConfig job;
    job.seed = o_.seed;
    job.nodes = static_cast<int>(names_.size());
    const auto reference = reference_training(job, o_.iterations);
    const auto& weights = last_done_.at(0).weights;
    double max_diff = 0;
    for (size_t i = 0; i < weights.size(); ++i)
      max_diff = std::max(max_diff, std::fabs(static_cast<double>(weights[i]) - reference[i]));
    s["loss"] = losses_;
    s["reference_max_abs_diff"] = max_diff;
  }
  return s;
}

}  // namespace testbed
