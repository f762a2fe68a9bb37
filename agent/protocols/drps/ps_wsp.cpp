// DRPS's WSP on the parameter server (Sec. 6): one master decides for the whole job. It runs
// on the first server's node; workers tell it when an iteration began (kWspStart) and ask
// it for their next clock (kWspAsk, with the iteration's length as they measured it) while
// their pulls go to the shards as under every model. The master's selector
// (wsp_selector.h) answers at once or forms a waiting set; each request it lets go becomes
// a grant to every shard (kWspGrant), naming the pushes of each worker the read must
// reflect, and a shard answers the pull once those are applied (server_shard.h).
//
// Messages:
//   kWspAsk    worker -> master  iteration: the clock asked for; tag: the iteration's ns
//   kWspStart  worker -> master  iteration: the clock whose parameters arrived
//   kWspGrant  master -> shards  iteration: the clock; chunk: the worker's index; keys:
//                                each worker's pushes the read must reflect
#include <stdexcept>

#include "agent/protocols/ps/ps_protocol.h"
#include "agent/transport/wire.h"

namespace testbed {
namespace {

// WSP's waits as logged: each one's estimate and realized length, up to this many (a run
// of 5 workers and a few hundred clocks waits a few hundred times; past this the counters
// still sum every wait).
constexpr size_t kWaitsLogged = 5000;

}  // namespace

void PsProtocol::setup_wsp() {
  wsp_master_ = servers_.front();
  if (self_ == wsp_master_)
    wsp_ = std::make_unique<WspSelector>(static_cast<int>(workers_.size()), model_.staleness);
}

void PsProtocol::tell_wsp_master(WireKind kind, int64_t iteration_ns) {
  WireHeader h;
  h.kind = kind;
  h.origin = self_;
  h.dest = wsp_master_;
  h.iteration = clock_;
  h.tag = static_cast<uint64_t>(iteration_ns);
  transfer_->send(wsp_master_, h, {}, {});
}

void PsProtocol::wsp_message(const Received& r) {
  const WireHeader& h = r.header;
  if (h.kind == WireKind::kWspGrant) {
    if (!shard_) throw std::runtime_error("a WSP grant reached a node with no shard");
    std::vector<uint64_t> need(r.keys.begin(), r.keys.end());
    try {
      return send_replies(shard_->grant(static_cast<int>(h.chunk), h.iteration, need));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("a malformed WSP grant: ") + e.what());
    }
  }
  if (!wsp_) throw std::runtime_error("a WSP request reached a node that is not the master");
  const int worker = worker_index(h.origin);
  if (worker < 0) throw std::runtime_error("a WSP request from a node that is no worker");
  if (h.kind == WireKind::kWspStart) return wsp_->started(worker, r.received_ns);
  const double iter_s = static_cast<double>(static_cast<int64_t>(h.tag)) / 1e9;
  for (const WspGrant& g : wsp_->request(worker, h.iteration, iter_s, r.received_ns)) {
    const auto& pushes = wsp_->pushes();
    const std::vector<uint32_t> need(pushes.begin(), pushes.end());
    for (size_t s = 0; s < servers_.size(); ++s) {
      WireHeader grant;
      grant.kind = WireKind::kWspGrant;
      grant.origin = self_;
      grant.dest = servers_[s];
      grant.chunk = static_cast<uint32_t>(g.worker);
      grant.iteration = g.clock;
      transfer_->send(servers_[s], grant, need, {});
    }
  }
}

nlohmann::json PsProtocol::wsp_stats() const {
  const WspCounters& c = wsp_->counters();
  nlohmann::json waits = nlohmann::json::array();
  for (size_t i = 0; i < wsp_->waits().size() && i < kWaitsLogged; ++i) {
    const WspWait& w = wsp_->waits()[i];
    waits.push_back({{"worker", workers_[static_cast<size_t>(w.worker)]},
                     {"clock", w.clock},
                     {"estimated_s", w.estimated_s},
                     {"realized_s", w.realized_s},
                     {"forced", w.forced}});
  }
  return {{"choices", c.choices},
          {"waited", c.waited},
          {"bound_forced", c.bound_forced},
          {"held", c.held},
          {"expected_wait_s", c.expected_wait_s},
          {"realized_wait_s", c.realized_wait_s},
          {"waits", waits}};
}

}  // namespace testbed
