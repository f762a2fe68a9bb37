#include "agent/protocols/drps/wsp_policy.h"

#include <stdexcept>

#include "agent/contracts/drps/drps_report.h"

namespace testbed {
namespace {

// WSP's waits as logged: each one's estimate and realized length, up to this many (a run
// of 5 workers and a few hundred clocks waits a few hundred times; past this the counters
// still sum every wait).
constexpr size_t kWaitsLogged = 5000;

}  // namespace

std::unique_ptr<PsPolicy> make_wsp_policy(const TrainingSetup&, PsCore& core) {
  if (core.consistency().kind != Consistency::Kind::kWsp) return nullptr;
  return std::make_unique<WspPolicy>(core);
}

WspPolicy::WspPolicy(PsCore& core) : core_(core), master_(core.servers().front()) {
  if (core_.self() == master_)
    wsp_ = std::make_unique<WspSelector>(static_cast<int>(core_.workers().size()),
                                         core_.consistency().staleness);
}

void WspPolicy::iteration_started(uint64_t clock) {
  iteration_start_ = Clock::now();
  tell_master(WireKind::kWspStart, clock, 0);
}

// The master decides when this read may go; the iteration's length is the worker's own,
// from its parameters' arrival to this request.
void WspPolicy::next_pull(uint64_t clock) {
  tell_master(WireKind::kWspAsk, clock,
              std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - iteration_start_)
                  .count());
}

bool WspPolicy::takes(const WireHeader& h) const {
  return h.kind == WireKind::kWspAsk || h.kind == WireKind::kWspStart ||
         h.kind == WireKind::kWspGrant;
}

void WspPolicy::tell_master(WireKind kind, uint64_t clock, int64_t iteration_ns) {
  WireHeader h;
  h.kind = kind;
  h.origin = core_.self();
  h.dest = master_;
  h.iteration = clock;
  h.tag = static_cast<uint64_t>(iteration_ns);
  core_.transfer().send(master_, h, {}, {});
}

void WspPolicy::on_grant(const Received& r) {
  ServerShard* shard = core_.shard();
  if (!shard) throw std::runtime_error("a WSP grant reached a node with no shard");
  const std::vector<uint64_t> need(r.keys.begin(), r.keys.end());
  try {
    core_.send_replies(shard->grant(static_cast<int>(r.header.chunk), r.header.iteration, need));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("a malformed WSP grant: ") + e.what());
  }
}

void WspPolicy::message(Received r) {
  const WireHeader& h = r.header;
  if (h.kind == WireKind::kWspGrant) return on_grant(r);
  if (!wsp_) throw std::runtime_error("a WSP request reached a node that is not the master");
  const int worker = core_.worker_index(h.origin);
  if (worker < 0) throw std::runtime_error("a WSP request from a node that is no worker");
  if (h.kind == WireKind::kWspStart) return wsp_->started(worker, r.received_ns);
  const double iter_s = static_cast<double>(static_cast<int64_t>(h.tag)) / 1e9;
  const std::vector<int>& servers = core_.servers();
  for (const WspGrant& g : wsp_->request(worker, h.iteration, iter_s, r.received_ns)) {
    const auto& pushes = wsp_->pushes();
    const std::vector<uint32_t> need(pushes.begin(), pushes.end());
    for (size_t s = 0; s < servers.size(); ++s) {
      WireHeader grant;
      grant.kind = WireKind::kWspGrant;
      grant.origin = core_.self();
      grant.dest = servers[s];
      grant.chunk = static_cast<uint32_t>(g.worker);
      grant.iteration = g.clock;
      core_.transfer().send(servers[s], grant, need, {});
    }
  }
}

// The section's shape is the contract's (agent/contracts/drps/drps_report.h).
void WspPolicy::stats(nlohmann::json& node, nlohmann::json*) const {
  if (!wsp_) return;
  const WspCounters& c = wsp_->counters();
  const std::vector<int>& workers = core_.workers();
  WspMasterSection m{c.choices,         c.waited, c.bound_forced, c.held, c.expected_wait_s,
                     c.realized_wait_s, {}};
  for (size_t i = 0; i < wsp_->waits().size() && i < kWaitsLogged; ++i) {
    const WspWait& w = wsp_->waits()[i];
    m.waits.push_back({static_cast<uint64_t>(workers[static_cast<size_t>(w.worker)]), w.clock,
                       w.estimated_s, w.realized_s, w.forced});
  }
  write_wsp_master_section(node, m);
}

}  // namespace testbed
