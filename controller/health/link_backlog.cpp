#include "controller/health/link_backlog.h"

#include <algorithm>
#include <cmath>

namespace testbed {

void BacklogMeter::add(const BacklogSample& s) {
  if (last_ && s.t_s > last_->t_s && s.sent_bytes >= last_->sent_bytes) {
    const double dt = s.t_s - last_->t_s;
    observed_s_ += dt;
    sent_total_ += s.sent_bytes - last_->sent_bytes;
    peak_ = std::max(peak_, static_cast<double>(s.sent_bytes - last_->sent_bytes) / dt);
    if (last_->backlog_bytes >= kMinBacklogBytes && s.backlog_bytes >= kMinBacklogBytes &&
        !drained_inside_ && s.rate_bytes_per_s > 0 &&
        s.rate_bytes_per_s == last_->rate_bytes_per_s) {
      const double sent = static_cast<double>(s.sent_bytes - last_->sent_bytes);
      const double allowed = static_cast<double>(s.rate_bytes_per_s) * dt;
      backlogged_s_ += dt;
      sent_ += sent;
      allowed_ += allowed;
      ratios_.push_back(sent / allowed);
    }
  }
  last_ = s;  // a counter that went back (the class was replaced) starts afresh
  drained_inside_ = false;
}

void BacklogMeter::probe(uint64_t backlog_bytes) {
  if (backlog_bytes < kMinBacklogBytes) drained_inside_ = true;
}

std::optional<double> BacklogMeter::rate_ratio() const {
  if (ratios_.size() < kMinJudged) return std::nullopt;
  std::vector<double> sorted = ratios_;
  std::sort(sorted.begin(), sorted.end());
  const auto rank = static_cast<size_t>(std::ceil(kQuantile * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

std::optional<double> BacklogMeter::mean_ratio() const {
  if (ratios_.size() < kMinJudged || allowed_ <= 0) return std::nullopt;
  return sent_ / allowed_;
}

}  // namespace testbed
