#include "agent/protocols/tree/tree_protocol.h"

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "agent/protocols/tree/sync_policy_json.h"
#include "agent/runtime/van_counters.h"

namespace testbed {
namespace {

// How long a node waits for the chunks of an iteration or a probe before it reports a
// failure instead of hanging: far beyond any iteration of a testbed-sized model.
constexpr auto kStallTimeout = std::chrono::seconds(300);
// The sequence number of the empty probe that measures a link's propagation delay.
constexpr uint32_t kLatencyProbe = 0xffffffff;

// A real float buffer per node and iteration, from the run's seed. Each element is a
// uniform float in [-1, 1) from a counter-based hash (splitmix64's finalizer over the
// element's index), not a normal draw from a sequential engine: the values only have to
// differ per node and iteration, and the draw is work the emulated compute time already
// stands for. Measured on AlexNet x0.25 (16 M elements, 9 nodes on 2 cores), the normal
// draws took about 18% of the host's CPU samples, a cost that grows with the model and so
// made a run at full rates slower than the same run scaled down; this costs about a
// nanosecond an element.
std::vector<float> make_gradient(uint64_t seed, int node, uint64_t iteration, size_t elements) {
  const uint64_t stream = seed ^ (uint64_t(node) << 32) ^ (iteration * 0x9e3779b97f4a7c15ULL);
  std::vector<float> g(elements);
  for (size_t i = 0; i < elements; ++i) {
    uint64_t z = stream + (i + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    // The top 24 bits, a float's mantissa, scaled to [-1, 1).
    g[i] = static_cast<float>(static_cast<int64_t>(z >> 40) - (int64_t(1) << 23)) *
           (1.0f / float(1 << 23));
  }
  return g;
}

// The checksum the nodes compare after each iteration. Eight partial sums instead of one
// chain of dependent additions: the same value on every node (the same order), at a
// fraction of the time on a model of millions of elements.
double sum_of(const std::vector<float>& v) {
  constexpr size_t kLanes = 8;
  double lane[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= v.size(); i += kLanes) {
    for (size_t k = 0; k < kLanes; ++k) lane[k] += v[i + k];
  }
  double sum = 0;
  for (; i < v.size(); ++i) sum += v[i];
  for (double l : lane) sum += l;
  return sum;
}

}  // namespace

TreeProtocol::TreeProtocol(AgentLink& link)
    : link_(link), self_(link.self()), paths_(link.self()) {}

std::chrono::milliseconds TreeProtocol::timeout() const {
  using std::chrono::milliseconds;
  if (phase_ == Phase::kComputing) {
    const auto left = std::chrono::duration_cast<milliseconds>(compute_end_ - Clock::now());
    return std::max(milliseconds(0), left);
  }
  // While synchronizing, wake now and then to notice a stall; idle, wait for anything.
  return phase_ == Phase::kSyncing ? milliseconds(100) : milliseconds(-1);
}

void TreeProtocol::command(const std::string& verb, const nlohmann::json& cmd) {
  try {
    if (verb == "probe") return probe(cmd);
    if (verb == "iterate") return begin_iteration(cmd);
    throw std::runtime_error("tree protocol: unknown command " + verb);
  } catch (const std::exception&) {
    phase_ = Phase::kIdle;
    throw;
  }
}

void TreeProtocol::tick() {
  if (phase_ == Phase::kComputing && Clock::now() >= compute_end_) start_sync();
  if (phase_ == Phase::kSyncing && aggregator_->done()) finish_iteration();
  if (phase_ == Phase::kSyncing && Clock::now() - started_ > kStallTimeout) {
    phase_ = Phase::kIdle;  // reported once
    throw std::runtime_error("iteration " + std::to_string(iteration_) + " stalled");
  }
}

void TreeProtocol::setup(const nlohmann::json& cmd) {
  const TreeSetup setup = tree_setup_from_json(cmd);
  nodes_ = setup.van.endpoints.size();
  neighbors_ = setup.neighbors;
  probe_bytes_ = setup.probe_bytes;
  chunk_elements_ = static_cast<uint32_t>(setup.chunk_elements);
  model_elements_ = setup.model_elements;
  seed_ = setup.seed;
  aggregator_ = std::make_unique<TreeAggregator>(self_, chunk_elements_);
  if (setup.logreg) {
    LogRegConfig config;
    config.seed = seed_;
    config.nodes = setup.logreg->nodes;
    config.features = setup.logreg->features;
    config.samples_per_node = setup.logreg->samples_per_node;
    config.learning_rate = static_cast<float>(setup.logreg->learning_rate);
    logreg_ = config;
    shard_ = std::make_unique<LogRegShard>(*logreg_, self_);
    weights_.assign(shard_->parameters(), 0.0f);
    model_elements_ = weights_.size();
  }
  link_.reply(to_json(NodeReady{}));
}

// Sends `count` probes to each of `to` and times those arriving from each of `from`. The
// first two of a train ride TCP's slow start: the rate is taken over the rest. Runs before
// any iteration, when nothing else is on the links.
void TreeProtocol::probe(const nlohmann::json& cmd) {
  const auto [to, from, bytes, count] = probe_links_from_json(cmd, nodes_);
  // First an empty message on each link: nothing is queued yet, so its one-way time is the
  // link's propagation delay, which passive measurement later subtracts.
  for (int peer : to) link_.van().probe(peer, kLatencyProbe, 0);
  for (uint32_t seq = 0; seq < count; ++seq) {
    for (int peer : to) link_.van().probe(peer, seq, bytes);
  }
  std::map<int, std::vector<int64_t>> arrivals;
  size_t expected = from.size() * count, got = 0;
  const auto deadline = Clock::now() + kStallTimeout;
  while (got < expected && Clock::now() < deadline) {
    auto r = link_.van().receive(std::chrono::milliseconds(100));
    if (!r) continue;
    if (r->header.kind != WireKind::kProbe) {
      message(std::move(*r));
      continue;
    }
    if (r->header.chunk == kLatencyProbe) {
      base_delay_ns_[r->header.from] = r->received_ns - r->header.sent_ns;
      continue;
    }
    arrivals[r->header.from].push_back(r->received_ns);
    ++got;
  }
  LinksProbed probed;
  for (auto& [peer, t] : arrivals) {
    if (t.size() < 3) continue;
    const double seconds = static_cast<double>(t.back() - t[1]) / 1e9;
    probed.mbit[static_cast<size_t>(peer)] =
        static_cast<double>((t.size() - 2) * bytes * 8) / seconds / 1e6;
  }
  link_.reply(to_json(probed));
}

// Compute is emulated by its duration, during which the node keeps forwarding; the
// gradient is a real buffer to synchronize.
void TreeProtocol::begin_iteration(const nlohmann::json& cmd) {
  if (!aggregator_) throw std::logic_error("iterate before setup");
  const IterateCommand c = iterate_command_from_json(cmd);
  iteration_ = c.iteration;
  policy_ = policy_from_json(c.policy);
  started_ = Clock::now();
  compute_end_ = started_ + std::chrono::milliseconds(c.compute_ms);
  // The synthetic gradient is made now, inside the emulated compute time that stands for
  // making it: nothing of this iteration is in flight yet (it begins once every node
  // finished the last one), so no forwarding waits behind it.
  if (!shard_) gradient_ = make_gradient(seed_, self_, iteration_, model_elements_);
  phase_ = Phase::kComputing;
}

void TreeProtocol::start_sync() {
  phase_ = Phase::kSyncing;
  std::vector<float> gradient = shard_ ? shard_->gradient(weights_) : std::move(gradient_);
  for (const auto& m : aggregator_->start(iteration_, policy_, std::move(gradient))) dispatch(m);
}

void TreeProtocol::dispatch(const ChunkMessage& m) {
  const std::vector<int> route = paths_.choose(policy_, m.to);
  link_.van().send(m, route, policy_.aux.has_value());
  ++chunks_sent_;
  if (route.size() > 2) ++aux_chunks_sent_;
}

void TreeProtocol::message(Received r) {
  if (r.header.kind == WireKind::kAck) {
    if (r.header.origin == self_) paths_.acknowledged(r.header.route_vector());
    return;
  }
  if (r.header.kind != WireKind::kChunk) return;  // a probe outside a probe: ignore
  measure(r);
  if (r.header.dest != self_) {
    // Forward-only on an auxiliary route: the route in the header decides, not this
    // node's policy, so a source on an older policy still reaches its destination.
    const int next = r.header.next_after(self_);
    if (next < 0) throw std::runtime_error("a chunk routed through a node not on its route");
    link_.van().forward(r, next);
    ++chunks_forwarded_;
    return;
  }
  if (r.header.flags & kWantsAck) link_.van().acknowledge(r);
  Delivered& d = delivered_[r.header.route_nodes > 2 ? 1 : 0];
  d.seconds += static_cast<double>(r.received_ns - r.header.origin_sent_ns) / 1e9;
  ++d.count;
  for (const auto& m : aggregator_->receive(std::move(r.chunk))) dispatch(m);
}

// A large enough chunk from a neighbour times the link it crossed; one clock on one host,
// so receive minus send time is its one-way time (Sec. V). That time also holds the link's
// propagation delay, which for the chunks of a scaled model can dwarf the transfer (128 KiB
// at 100 Mbit/s is 10 ms on a 30 ms link), and, for a chunk queued behind the previous one,
// that one's transfer. So the transfer is timed from the later of: its send time plus the
// propagation delay (measured by the empty probe at start), and the previous message's
// arrival from that neighbour. Forwarded chunks count too: that is how auxiliary routes
// bring idle links into the measurements.
void TreeProtocol::measure(const Received& r) {
  if (!neighbors_.count(r.header.from)) return;
  int64_t& last = last_arrival_ns_[r.header.from];
  const int64_t previous = last;
  last = r.received_ns;
  if (probe_bytes_ == 0 || r.payload_bytes < probe_bytes_) return;
  const int64_t start = std::max(previous, r.header.sent_ns + base_delay_ns_[r.header.from]);
  if (r.received_ns <= start) return;
  auto& s = samples_[r.header.from];
  s.bytes += static_cast<double>(r.payload_bytes + sizeof(WireHeader));
  s.seconds += static_cast<double>(r.received_ns - start) / 1e9;
  ++s.count;
}

std::map<size_t, LinkSample> TreeProtocol::take_samples() {
  std::map<size_t, LinkSample> out;
  for (const auto& [from, s] : samples_)
    out[static_cast<size_t>(from)] = {s.bytes, s.seconds, static_cast<uint64_t>(s.count)};
  samples_.clear();
  return out;
}

void TreeProtocol::finish_iteration() {
  phase_ = Phase::kIdle;
  IterationDone done;
  if (shard_) {
    apply_update(weights_, aggregator_->result(), *logreg_);
    done.loss = shard_->loss(weights_);
    done.weights = weights_;
  }
  done.iteration = iteration_;
  done.checksum = sum_of(shard_ ? weights_ : aggregator_->result());
  done.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  done.link_samples = take_samples();
  done.chunks_sent = chunks_sent_;
  done.aux_chunks_sent = aux_chunks_sent_;
  done.chunks_forwarded = chunks_forwarded_;
  done.primary = {delivered_[0].count, delivered_[0].seconds};
  done.aux = {delivered_[1].count, delivered_[1].seconds};
  done.counters = van_counters(link_.van());
  delivered_[0] = delivered_[1] = Delivered{};
  link_.reply(to_json(done));
}

}  // namespace testbed
