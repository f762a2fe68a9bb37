// Gaia when a mirror falls silent (mirror_watch.h): the heartbeats, the watch's verdicts
// and what each policy does with them, and the digest of the replica the controller polls
// to measure how far the data centers drift apart.
#include <cmath>

#include "agent/contracts/gaia/gaia_events.h"
#include "agent/contracts/gaia/replica_digest.h"
#include "agent/protocols/gaia/gaia_protocol.h"

namespace testbed {

void GaiaProtocol::setup_watch(const GaiaSetup& g) {
  go_on_when_cut_ = g.continue_when_cut;
  const auto mine = g.silence_ms.find(self_);
  if (mine == g.silence_ms.end()) return;  // no bounds: no watch (and no heartbeats)
  std::map<int, std::chrono::milliseconds> silence;
  for (const auto& [node, ms] : mine->second) silence[node] = std::chrono::milliseconds(ms);
  watch_ = std::make_unique<MirrorWatch>(std::move(silence), Clock::now());
}

void GaiaProtocol::heard_from(int node) {
  if (!watch_ || !watch_->heard(node, Clock::now())) return;
  client_->set_cut(node, false, clock_);
  mirrors_->set_cut(node, false);
  link_.reply(to_json(MirrorCut{static_cast<size_t>(node), false}));
}

// Before the run starts nothing is watched: the mirrors are not yet sending.
void GaiaProtocol::watch_tick() {
  if (!watch_ || phase_ == Phase::kIdle) return;
  const auto now = Clock::now();
  if (watch_->heartbeat_due(now)) client_->heartbeat(clock_);
  bool lifted = false;
  for (int node : watch_->expired(now)) {
    client_->set_cut(node, true, clock_);
    if (go_on_when_cut_) {
      mirrors_->set_cut(node, true);
      lifted = true;
    }
    link_.reply(to_json(MirrorCut{static_cast<size_t>(node), true}));
  }
  // Its readers may have waited on the mirror just left out.
  if (lifted && phase_ == Phase::kReading) try_read();
}

void GaiaProtocol::reply_digest() const {
  ReplicaDigest d;
  d.clock = clock_;
  double squared = 0;
  for (float v : values_) squared += static_cast<double>(v) * v;
  d.norm = std::sqrt(squared);
  d.sketch = count_sketch(values_);
  d.waiting_keys = client_->waiting_keys();
  link_.reply(to_json(d));
}

}  // namespace testbed
