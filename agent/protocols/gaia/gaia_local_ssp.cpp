// SSP inside a Gaia data center (the paper's Appendix B): the data center's workers each go
// at their own pace, and a worker may read the replica for its clock c while c is at most
// `local_staleness_` clocks ahead of the slowest local worker (the server's clock).
// Updates take effect when a worker ends its clock; the server's clock ends when the
// slowest worker's does, and only then does the filter pass over what accumulated and the
// mirrors hear of the clock, as under BSP. Between data centers nothing changes: the
// mirror clock and the barriers hold back every read as before.
#include <algorithm>

#include "agent/jobs/local_workers.h"
#include "agent/protocols/gaia/gaia_protocol.h"

namespace testbed {

double GaiaProtocol::held_out_loss() const {
  if (local_.empty()) return job_->held_out_loss(values_);
  // Each worker's own job holds its local state (mf's L): the mean over them, as the BSP
  // path's LocalWorkers gives it.
  double sum = 0;
  for (const auto& w : local_) sum += w.job->held_out_loss(values_);
  return sum / static_cast<double>(local_.size());
}

// Starts every local worker that may read now. The data center counts as held back by a
// rule only while none of its workers computes.
void GaiaProtocol::ssp_try_read() {
  if (phase_ != Phase::kReading) return;
  const auto now = Clock::now();
  ReadBlock held = ReadBlock::kNone;
  bool computing = false;
  for (size_t k = 0; k < local_.size(); ++k) {
    auto& w = local_[k];
    if (w.computing) {
      computing = true;
      continue;
    }
    if (stop_requested_ || w.clock >= static_cast<uint64_t>(iterations_)) continue;
    if (w.clock > clock_ + static_cast<uint64_t>(local_staleness_)) continue;  // SSP's bound
    const ReadBlock block = mirrors_->can_read(clock_, w.job->keys_for(w.clock));
    if (block != ReadBlock::kNone) {
      if (held == ReadBlock::kNone) held = block;
      continue;
    }
    local_max_ahead_ = std::max(local_max_ahead_, w.clock - clock_);
    w.update = w.job->update(w.clock, values_);
    census_.count(w.update, values_, w.clock);
    log_.add_samples(w.job->samples_per_update());
    w.computing = computing = true;
    w.compute_end =
        now + std::chrono::milliseconds(worker_compute_ms(
                  compute_, seed_, self_, static_cast<int>(k), w.clock, slowdown_, stragglers_));
  }
  note_block(computing ? ReadBlock::kNone : held, now);
}

void GaiaProtocol::ssp_tick() {
  if (phase_ != Phase::kReading) return;
  const auto now = Clock::now();
  for (auto& w : local_) {
    if (!w.computing || now < w.compute_end) continue;
    for (size_t i = 0; i < w.update.values.size(); ++i)
      values_[w.update.keys.empty() ? i : w.update.keys[i]] += w.update.values[i];
    filter_->accumulate(w.update);
    w.computing = false;
    ++w.clock;
  }
  uint64_t slowest = UINT64_MAX;
  for (const auto& w : local_) slowest = std::min(slowest, w.clock);
  while (clock_ < slowest && phase_ == Phase::kReading) {
    server_clock_ended();
    ssp_clock_started();
  }
  ssp_try_read();
}

// The server's clock clock_ begins: evaluated when due, logged, or the run ends.
void GaiaProtocol::ssp_clock_started() {
  const auto now = Clock::now();
  if (clock_ == 0 || clock_ == static_cast<uint64_t>(iterations_) || now >= next_eval_) {
    next_eval_ = now + eval_interval_;
    log_.evaluated(clock_, held_out_loss());
  }
  log_.started(clock_, now);
  if (stop_requested_ || clock_ >= static_cast<uint64_t>(iterations_)) finish();
}

}  // namespace testbed
