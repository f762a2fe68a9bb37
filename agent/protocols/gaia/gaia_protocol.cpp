#include "agent/protocols/gaia/gaia_protocol.h"

#include <algorithm>
#include <stdexcept>

#include "agent/contracts/node_replies.h"
#include "agent/contracts/worker_events.h"
#include "agent/jobs/local_workers.h"
#include "agent/protocols/gaia/key_bitmap.h"
#include "agent/protocols/job_setup.h"
#include "agent/transport/wire.h"

namespace testbed {

void GaiaProtocol::setup(const nlohmann::json& cmd) {
  const TrainingSetup s = training_setup_from_json(cmd);
  data_centers_ = s.workers;
  iterations_ = s.iterations;
  seed_ = s.seed;
  compute_ = {s.compute.min_ms, s.compute.max_ms};
  stragglers_ = {s.compute.straggler_share, s.compute.straggler_factor};
  eval_interval_ = std::chrono::milliseconds(s.eval_interval_ms);
  slowdown_ = s.slowdown(self_);
  per_node_ = s.job.workers_per_node;
  const auto at = std::find(data_centers_.begin(), data_centers_.end(), self_);
  if (at == data_centers_.end()) throw std::runtime_error("gaia: every node is a data center");
  const int me = static_cast<int>(at - data_centers_.begin());
  const JobConfig config = job_config(s.job, static_cast<int>(data_centers_.size()) * per_node_);
  const GaiaSetup& g = *s.gaia;  // present: the setup's reader refuses a Gaia run without it
  local_staleness_ = g.local_staleness;
  if (local_staleness_ >= 0) {  // SSP inside: each local worker steps alone, with its own job
    for (int k = 0; k < per_node_; ++k)
      local_.push_back({make_job(config, me * per_node_ + k), 0, false, {}, {}});
  } else {
    // BSP inside: the workers' updates summed. Each is measured against the replica it
    // read, the value the server holds when the update reaches it (applied at clock's end).
    job_ = make_local_workers(config, me, per_node_,
                              [this](const SparseUpdate& u) { census_.count(u, values_, clock_); });
  }
  const Job& model = job_ ? *job_ : *local_.front().job;
  values_.resize(model.parameters());
  for (size_t k = 0; k < values_.size(); ++k)
    values_[k] = model.initial_value(static_cast<uint32_t>(k));

  filter_ = std::make_unique<SignificanceFilter>(values_.size(), g.threshold, g.soft);
  // Mirrors are known by node index; a node that is no data center never reports a clock,
  // so it counts as never behind.
  const int nodes = *std::max_element(data_centers_.begin(), data_centers_.end()) + 1;
  mirrors_ = std::make_unique<MirrorState>(nodes, self_, values_.size(), g.ds);
  for (int n = 0; n < nodes; ++n)
    if (std::find(data_centers_.begin(), data_centers_.end(), n) == data_centers_.end())
      mirrors_->clock_reported(n, UINT64_MAX / 2);
  std::vector<MirrorLink> links;
  const auto mine = g.mirrors.find(self_);
  if (mine == g.mirrors.end()) throw std::runtime_error("gaia: no mirrors for this data center");
  for (const GaiaMirrorLink& m : mine->second) {
    links.push_back({m.node, m.window_bytes, m.hub});
    if (links.back().hub)
      hubs_.insert(links.back().node);
    else
      group_members_ = true;
  }
  std::vector<int> clock_to;
  for (int dc : data_centers_)
    if (dc != self_) clock_to.push_back(dc);
  client_ = std::make_unique<MirrorClient>(link_.van(), self_, values_.size(), std::move(links),
                                           std::move(clock_to));
  setup_watch(g);
  t_in_passes_ = g.t_in_passes;
  clocks_per_pass_ = model.clocks_per_pass();
  link_.reply(to_json(NodeReady{values_.size()}));
}

void GaiaProtocol::command(const std::string& verb, const nlohmann::json&) {
  if (verb == "start") {
    if (phase_ != Phase::kIdle) return;
    next_eval_ = Clock::now();
    if (watch_) watch_->start(next_eval_);
    phase_ = Phase::kReading;
    if (local_staleness_ >= 0) ssp_clock_started();
    try_read();
  } else if (verb == "stop") {
    stop_requested_ = true;
    if (phase_ == Phase::kReading || phase_ == Phase::kComputing) finish();
  } else if (verb == "evaluate") {
    link_.reply(to_json(ModelEvaluated{held_out_loss()}));
  } else if (verb == "stats") {
    link_.reply(stats());
  } else if (verb == "digest") {
    reply_digest();
  } else {
    throw std::runtime_error("gaia protocol: unknown command " + verb);
  }
}

void GaiaProtocol::message(Received r) {
  const WireHeader& h = r.header;
  heard_from(h.origin);
  switch (h.kind) {
    case WireKind::kMirrorUpdate: {
      // A mirror's significant updates are deltas: added to this replica as they come.
      if (h.flags & kDense) {
        if (r.values.size() != values_.size())
          throw std::runtime_error("a mirror update of the wrong size");
        for (size_t k = 0; k < values_.size(); ++k) values_[k] += r.values[k];
      } else {
        for (size_t i = 0; i < r.keys.size(); ++i) values_.at(r.keys[i]) += r.values[i];
      }
      applied_keys_ += h.flags & kDense ? values_.size() : r.keys.size();
      ++updates_received_;
      stage_relay(r);
      mirrors_->arrived(h.origin, h.tag);
      WireHeader ack;
      ack.kind = WireKind::kMirrorAck;
      ack.origin = self_;
      ack.dest = h.origin;
      ack.tag = h.tag;
      link_.van().send_kv(h.origin, ack, {}, {});
      break;
    }
    case WireKind::kMirrorBarrier:
      if (h.flags & kDense) {  // every key
        std::vector<uint32_t> all(values_.size());
        for (uint32_t k = 0; k < all.size(); ++k) all[k] = k;
        mirrors_->barrier(h.origin, h.tag, all);
      } else if (h.flags & kKeyBitmap) {
        mirrors_->barrier(h.origin, h.tag, from_bitmap(r.keys, values_.size()));
      } else {
        mirrors_->barrier(h.origin, h.tag, r.keys);
      }
      ++barriers_received_;
      break;
    case WireKind::kMirrorClock:
      mirrors_->clock_reported(h.origin, h.iteration);
      break;
    case WireKind::kMirrorAck:
      client_->acked(h.origin, h.tag);
      break;
    default:
      return;
  }
  if (phase_ == Phase::kReading) try_read();
}

// Reads the replica for clock_ if the mirror clock and the barriers allow, then computes.
void GaiaProtocol::try_read() {
  if (local_staleness_ >= 0) return ssp_try_read();
  const auto now = Clock::now();
  const ReadBlock block = mirrors_->can_read(clock_, job_->keys_for(clock_));
  note_block(block, now);
  if (block != ReadBlock::kNone) return;
  const bool evaluate =
      clock_ == 0 || clock_ == static_cast<uint64_t>(iterations_) || now >= next_eval_;
  if (evaluate) {
    next_eval_ = now + eval_interval_;
    log_.evaluated(clock_, held_out_loss());
  }
  log_.started(clock_, now);
  if (stop_requested_ || clock_ >= static_cast<uint64_t>(iterations_)) return finish();
  phase_ = Phase::kComputing;
  update_ = job_->update(clock_, values_);
  log_.add_samples(job_->samples_per_update());
  compute_end_ = now + std::chrono::milliseconds(local_compute_ms(compute_, seed_, self_, per_node_,
                                                                  clock_, slowdown_, stragglers_));
}

// Counts a read held back, and for how long, by the rule that holds it.
void GaiaProtocol::note_block(ReadBlock block, Clock::time_point now) {
  if (block == blocked_) return;
  const double held = std::chrono::duration<double>(now - blocked_since_).count();
  if (blocked_ == ReadBlock::kMirrorClock) blocked_s_clock_ += held;
  if (blocked_ == ReadBlock::kBarrier) blocked_s_barrier_ += held;
  if (block == ReadBlock::kMirrorClock) ++blocked_reads_clock_;
  if (block == ReadBlock::kBarrier) ++blocked_reads_barrier_;
  blocked_ = block;
  blocked_since_ = now;
}

// BSP inside: the workers' summed update is applied and the server's clock ends.
void GaiaProtocol::end_clock() {
  for (size_t i = 0; i < update_.values.size(); ++i)
    values_[update_.keys.empty() ? i : update_.keys[i]] += update_.values[i];
  filter_->accumulate(update_);
  server_clock_ended();
  phase_ = Phase::kReading;
  try_read();
}

// The local server's end of a clock (every local worker's update of it applied and
// accumulated): the filter decides what the mirrors must see, and the clock is reported.
void GaiaProtocol::server_clock_ended() {
  ++clock_;
  const Significant own =
      filter_->take(values_, schedule_t(clock_, clocks_per_pass_, t_in_passes_));
  client_->update(own, clock_, Reach::kGroup);
  // A hub sends its own updates to the other groups' hubs with its group's, summed.
  if (!hubs_.empty()) add_to(from_group_, own);
  forward_relays();
  const FilterCounts& now = filter_->counts();
  filtered_by_clock_.push_back(now.updates - counted_.updates);
  sent_by_clock_.push_back(now.significant + now.soft - counted_.significant - counted_.soft);
  counted_ = now;
  filter_->wan_idle(client_->idle());
  client_->clock(clock_);
}

void GaiaProtocol::tick() {
  watch_tick();
  if (local_staleness_ >= 0) return ssp_tick();
  if (phase_ == Phase::kComputing && Clock::now() >= compute_end_) end_clock();
}

std::chrono::milliseconds GaiaProtocol::timeout() const {
  using std::chrono::milliseconds;
  const auto until = [](Clock::time_point t) {
    return std::max(milliseconds(0), std::chrono::duration_cast<milliseconds>(t - Clock::now()));
  };
  auto next = milliseconds(-1);  // none: a message unblocks a read
  if (local_staleness_ >= 0 && phase_ == Phase::kReading) {
    for (const auto& w : local_)  // the next local worker to end its compute
      if (w.computing && (next < milliseconds(0) || until(w.compute_end) < next))
        next = until(w.compute_end);
  } else if (phase_ == Phase::kComputing) {
    next = until(compute_end_);
  }
  // The watch's next heartbeat or verdict, once the run is under way.
  if (watch_ && phase_ != Phase::kIdle) {
    const auto watch = until(watch_->next_deadline());
    if (next < milliseconds(0) || watch < next) next = watch;
  }
  return next;
}

// Sec. 4.5's hubs: what a group member sent is summed for the other groups' hubs, and
// what another group's hub sent is summed for this group's members (in messages flagged
// relayed, which no hub passes on again). Sent at this data center's next clock end, or
// at once while its workers are not computing (a hub blocked on a read still relays).
void GaiaProtocol::stage_relay(const Received& r) {
  const bool from_hub = hubs_.count(r.header.origin) > 0;
  std::map<uint32_t, float>* into = nullptr;
  if (from_hub && group_members_) into = &from_other_groups_;
  if (!from_hub && !(r.header.flags & kRelayed) && !hubs_.empty()) into = &from_group_;
  if (!into) return;
  if (r.header.flags & kDense) {
    for (size_t k = 0; k < r.values.size(); ++k)
      if (r.values[k] != 0.0f) (*into)[static_cast<uint32_t>(k)] += r.values[k];
  } else {
    for (size_t i = 0; i < r.keys.size(); ++i) (*into)[r.keys[i]] += r.values[i];
  }
  ++relays_staged_;
  if (phase_ != Phase::kComputing) forward_relays();
}

void GaiaProtocol::forward_relays() {
  const auto take = [](std::map<uint32_t, float>& from) {
    Significant s;
    for (const auto& [k, d] : from) {
      s.keys.push_back(k);
      s.deltas.push_back(d);
    }
    from.clear();
    return s;
  };
  client_->update(take(from_group_), clock_, Reach::kHubs);
  client_->update(take(from_other_groups_), clock_, Reach::kGroup, Lane::kRelayed);
  if (phase_ == Phase::kFinished) client_->flush();
}

void GaiaProtocol::add_to(std::map<uint32_t, float>& into, const Significant& s) {
  for (size_t i = 0; i < s.keys.size(); ++i) into[s.keys[i]] += s.deltas[i];
}

void GaiaProtocol::finish() {
  // A run stopped while a rule holds the read back: that wait counts up to now.
  note_block(ReadBlock::kNone, Clock::now());
  phase_ = Phase::kFinished;
  forward_relays();
  client_->flush();  // what waits for the WAN still reaches the mirrors
  log_.finished();
}

}  // namespace testbed
