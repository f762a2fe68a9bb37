#include "controller/training/quiet_watch.h"

#include <algorithm>
#include <stdexcept>

namespace testbed {

QuietWatch::QuietWatch(std::vector<std::string> workers, double start_s, double limit_s)
    : workers_(std::move(workers)),
      clocks_(workers_.size(), 0),
      finished_(workers_.size(), 0),
      last_progress_s_(start_s),
      limit_s_(limit_s) {
  if (limit_s_ <= 0) throw std::invalid_argument("a quiet watch needs a positive limit");
}

void QuietWatch::clock_done(size_t w, uint64_t clocks, double now_s) {
  if (w >= workers_.size()) return;  // not a worker's: no progress of the run's
  clocks_[w] = std::max(clocks_[w], clocks);
  last_progress_s_ = now_s;
}

void QuietWatch::finished(size_t w, double now_s) {
  if (w >= workers_.size()) return;
  finished_[w] = 1;
  last_progress_s_ = now_s;
}

std::optional<std::string> QuietWatch::lost(double now_s) const {
  const double quiet = now_s - last_progress_s_;
  if (quiet < limit_s_) return std::nullopt;
  std::string waiting;
  for (size_t w = 0; w < workers_.size(); ++w) {
    if (finished_[w]) continue;
    waiting +=
        (waiting.empty() ? "" : ", ") + workers_[w] + " in clock " + std::to_string(clocks_[w] + 1);
  }
  return "no worker finished a clock for " + std::to_string(static_cast<int>(quiet)) +
         " s while nothing stood queued on the network: a message between agents was lost. "
         "Waiting: " +
         waiting;
}

}  // namespace testbed
