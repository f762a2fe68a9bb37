// testbed-agent: one data center's node. Started by `testbed train` inside the node's
// namespace; takes commands from the controller over a filesystem (ipc://) socket, which
// never crosses the shaped links, and exchanges model chunks with other nodes over TCP
// across them.
//
// usage: testbed-agent --control ipc://PATH --node INDEX
// Commands (JSON), each answered by one event:
//   setup   {endpoints, chunk_elements, model_elements, seed}        -> ready
//   probe   {to: [nodes], from: [nodes], bytes, count}                -> probed {mbit: {from: x}}
//   iterate {iteration, compute_ms, policy: {version, trees: [...]}}  -> done {seconds, checksum,
//   ...} quit                                                              -> (exits)
#include <nlohmann/json.hpp>
#include <zmq.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "logistic_regression.h"
#include "tree_aggregator.h"
#include "van.h"

namespace testbed {
namespace {

// How long a node waits for the chunks of an iteration or a probe before it reports a
// failure instead of hanging: far beyond any iteration of a testbed-sized model.
constexpr auto kStallTimeout = std::chrono::seconds(300);

SyncPolicy policy_from_json(const nlohmann::json& j) {
  SyncPolicy p;
  p.strategy = j.value("strategy", "");
  p.version = j.value("version", uint64_t{0});
  for (const auto& t : j.at("trees")) {
    p.trees.push_back({t.at("root").get<int>(), t.at("parent").get<std::vector<int>>(),
                       t.at("share").get<double>()});
  }
  return p;
}

// A real float buffer per node and iteration, from the run's seed.
std::vector<float> make_gradient(uint64_t seed, int node, uint64_t iteration, size_t elements) {
  std::mt19937_64 rng(seed ^ (uint64_t(node) << 32) ^ iteration);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> g(elements);
  for (auto& x : g) x = d(rng);
  return g;
}

nlohmann::json counters(const std::map<int, uint64_t>& m) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [peer, bytes] : m) j[std::to_string(peer)] = bytes;
  return j;
}

class Agent {
 public:
  Agent(zmq::context_t& context, const std::string& control, int self)
      : context_(context), self_(self), control_(context, zmq::socket_type::dealer) {
    control_.set(zmq::sockopt::routing_id, std::to_string(self));
    control_.set(zmq::sockopt::linger, 1000);  // the last event must reach the controller
    control_.connect(control);
  }

  int run() {
    reply({{"event", "hello"}});
    for (;;) {
      zmq::message_t msg;
      if (!control_.recv(msg)) continue;
      const auto cmd = nlohmann::json::parse(msg.to_string());
      const std::string verb = cmd.at("cmd");
      try {
        if (verb == "quit") return 0;
        if (verb == "setup") setup(cmd);
        if (verb == "probe") probe(cmd);
        if (verb == "iterate") iterate(cmd);
      } catch (const std::exception& e) {
        reply({{"event", "error"}, {"what", e.what()}});
      }
    }
  }

 private:
  void reply(const nlohmann::json& j) {
    control_.send(zmq::buffer(j.dump()), zmq::send_flags::none);
  }

  void setup(const nlohmann::json& cmd) {
    van_ =
        std::make_unique<Van>(context_, self_, cmd.at("endpoints").get<std::vector<std::string>>());
    neighbors_ = cmd.value("neighbors", std::set<int>{});
    probe_bytes_ = cmd.value("probe_bytes", size_t{0});
    chunk_elements_ = cmd.at("chunk_elements");
    model_elements_ = cmd.at("model_elements");
    seed_ = cmd.at("seed");
    if (cmd.value("job", "") == "logreg") {
      LogRegConfig config;
      config.seed = seed_;
      config.nodes = cmd.at("nodes").get<int>();
      config.features = cmd.at("features").get<int>();
      config.samples_per_node = cmd.at("samples_per_node").get<int>();
      config.learning_rate = cmd.at("learning_rate").get<float>();
      logreg_ = config;
      shard_ = std::make_unique<LogRegShard>(*logreg_, self_);
      weights_.assign(shard_->parameters(), 0.0f);
      model_elements_ = weights_.size();
    }
    reply({{"event", "ready"}});
  }

  // Sends `count` probes to each of `to` and times those arriving from each of `from`. The
  // first two of a train ride TCP's slow start: the rate is taken over the rest.
  void probe(const nlohmann::json& cmd) {
    const auto to = cmd.at("to").get<std::vector<int>>();
    const auto from = cmd.at("from").get<std::vector<int>>();
    const size_t bytes = cmd.at("bytes");
    const uint32_t count = cmd.at("count");
    for (uint32_t seq = 0; seq < count; ++seq) {
      for (int peer : to) van_->probe(peer, seq, bytes);
    }
    std::map<int, std::vector<int64_t>> arrivals;
    size_t expected = from.size() * count, got = 0;
    const auto deadline = std::chrono::steady_clock::now() + kStallTimeout;
    while (got < expected && std::chrono::steady_clock::now() < deadline) {
      auto r = van_->receive(std::chrono::milliseconds(100));
      if (!r || r->header.kind != WireKind::kProbe) continue;
      arrivals[r->header.from].push_back(r->received_ns);
      ++got;
    }
    nlohmann::json mbit = nlohmann::json::object();
    for (auto& [peer, t] : arrivals) {
      if (t.size() < 3) continue;
      const double seconds = static_cast<double>(t.back() - t[1]) / 1e9;
      mbit[std::to_string(peer)] = static_cast<double>((t.size() - 2) * bytes * 8) / seconds / 1e6;
    }
    reply({{"event", "probed"}, {"mbit", mbit}});
  }

  void iterate(const nlohmann::json& cmd) {
    const uint64_t iteration = cmd.at("iteration");
    const auto start = std::chrono::steady_clock::now();
    // Compute is emulated by its duration; the gradient is a real buffer to synchronize.
    std::this_thread::sleep_for(std::chrono::milliseconds(cmd.value("compute_ms", 0)));
    TreeAggregator aggregator(self_, chunk_elements_);
    std::vector<float> gradient = shard_ ? shard_->gradient(weights_)
                                         : make_gradient(seed_, self_, iteration, model_elements_);
    for (const auto& m :
         aggregator.start(iteration, policy_from_json(cmd.at("policy")), std::move(gradient))) {
      van_->send(m);
    }
    const auto deadline = std::chrono::steady_clock::now() + kStallTimeout;
    while (!aggregator.done()) {
      if (std::chrono::steady_clock::now() > deadline)
        throw std::runtime_error("iteration stalled");
      auto r = van_->receive(std::chrono::milliseconds(100));
      if (!r || r->header.kind != WireKind::kChunk) continue;
      // Passive awareness (NetStorm Sec. V): a large enough chunk from a neighbour times the
      // link it crossed; one clock on one host, so receive minus send time is its one-way time.
      if (probe_bytes_ > 0 && r->payload_bytes >= probe_bytes_ &&
          neighbors_.count(r->header.from)) {
        auto& s = samples_[r->header.from];
        s.bytes += static_cast<double>(r->payload_bytes + sizeof(WireHeader));
        s.seconds += static_cast<double>(r->received_ns - r->header.sent_ns) / 1e9;
        ++s.count;
      }
      for (const auto& m : aggregator.receive(std::move(r->chunk))) van_->send(m);
    }
    nlohmann::json job = nlohmann::json::object();
    if (shard_) {
      apply_update(weights_, aggregator.result(), *logreg_);
      job = {{"loss", shard_->loss(weights_)}, {"weights", weights_}};
    }
    double checksum = 0;
    for (float x : shard_ ? weights_ : aggregator.result()) checksum += x;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    reply({{"event", "done"},
           {"iteration", iteration},
           {"seconds", seconds},
           {"checksum", checksum},
           {"job", job},
           {"link_samples", take_samples()},
           {"bytes_sent", counters(van_->bytes_sent())},
           {"bytes_received", counters(van_->bytes_received())}});
  }

  zmq::context_t& context_;
  int self_;
  zmq::socket_t control_;
  std::unique_ptr<Van> van_;
  uint32_t chunk_elements_ = 0;
  size_t model_elements_ = 0;
  uint64_t seed_ = 0;
  struct Samples {
    double bytes = 0, seconds = 0;
    int count = 0;
  };
  nlohmann::json take_samples() {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [from, s] : samples_) {
      j[std::to_string(from)] = {{"bytes", s.bytes}, {"seconds", s.seconds}, {"count", s.count}};
    }
    samples_.clear();
    return j;
  }
  std::set<int> neighbors_;  // physical in-neighbours: chunks from them measure a link
  size_t probe_bytes_ = 0;   // PROBE_CHUNK_SIZE in bytes; 0 turns measuring off
  std::map<int, Samples> samples_;
  // The real training job, when asked for: this node's shard and its copy of the weights.
  std::optional<LogRegConfig> logreg_;
  std::unique_ptr<LogRegShard> shard_;
  std::vector<float> weights_;
};

}  // namespace
}  // namespace testbed

int main(int argc, char** argv) {
  std::string control;
  int node = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--control") control = argv[i + 1];
    if (opt == "--node") node = std::atoi(argv[i + 1]);
  }
  if (control.empty() || node < 0) {
    std::fprintf(stderr, "usage: testbed-agent --control ipc://PATH --node INDEX\n");
    return 2;
  }
  zmq::context_t context;
  return testbed::Agent(context, control, node).run();
}
