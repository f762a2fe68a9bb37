#include "link_backlog.h"

namespace testbed {

void BacklogMeter::add(const BacklogSample& s) {
  if (last_ && s.t_s > last_->t_s && s.sent_bytes >= last_->sent_bytes) {
    const double dt = s.t_s - last_->t_s;
    observed_s_ += dt;
    if (last_->backlog_packets > 0 && s.backlog_packets > 0 && s.rate_bytes_per_s > 0 &&
        s.rate_bytes_per_s == last_->rate_bytes_per_s) {
      backlogged_s_ += dt;
      sent_ += static_cast<double>(s.sent_bytes - last_->sent_bytes);
      allowed_ += static_cast<double>(s.rate_bytes_per_s) * dt;
    }
  }
  last_ = s;  // a counter that went back (the class was replaced) starts afresh
}

std::optional<double> BacklogMeter::rate_ratio() const {
  if (backlogged_s_ < kMinJudgedS || allowed_ <= 0) return std::nullopt;
  return sent_ / allowed_;
}

}  // namespace testbed
