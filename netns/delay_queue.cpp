#include "netns/delay_queue.h"

#include <algorithm>

namespace testbed {

int64_t DelayQueue::admit(uint32_t id, int64_t now_us) {
  int64_t delay = params_.delay_us;
  if (params_.jitter_us > 0) {
    std::uniform_int_distribution<int64_t> jitter(-params_.jitter_us, params_.jitter_us);
    delay = std::max<int64_t>(0, delay + jitter(rng_));
  }
  int64_t release = now_us + delay;
  if (params_.reorder) {
    heap_.push({release, id});
  } else {
    release = std::max(release, last_release_us_);
    last_release_us_ = release;
    fifo_.push_back({release, id});
  }
  return release;
}

void DelayQueue::record(int64_t late_us, int64_t host_us) {
  lateness_.add(late_us);
  emulator_lateness_.add(late_us - std::max<int64_t>(0, host_us));
}

std::vector<uint32_t> DelayQueue::release_due(int64_t now_us, int64_t early_us, int64_t stalled_us,
                                              int64_t stall_end_us) {
  const int64_t stall_end = stall_end_us < 0 ? now_us : stall_end_us;
  // A packet due before the stall was seen owes it as much of its lateness as the stall
  // lasted. Not only the part inside [end - stalled, end]: the stall is seen at the first
  // wake-up after it, and may have ended a sleep earlier (the host stopped us mid-verdict).
  const auto host = [&](int64_t due) {
    return due <= stall_end ? std::min(now_us - due, std::max<int64_t>(0, stalled_us)) : 0;
  };
  std::vector<uint32_t> ids;
  const int64_t until = now_us + early_us;
  while (!fifo_.empty() && fifo_.front().release_us <= until) {
    record(now_us - fifo_.front().release_us, host(fifo_.front().release_us));
    ids.push_back(fifo_.front().id);
    fifo_.pop_front();
  }
  while (!heap_.empty() && heap_.top().release_us <= until) {
    record(now_us - heap_.top().release_us, host(heap_.top().release_us));
    ids.push_back(heap_.top().id);
    heap_.pop();
  }
  return ids;
}

int64_t DelayQueue::next_release() const {
  int64_t next = -1;
  if (!fifo_.empty()) next = fifo_.front().release_us;
  if (!heap_.empty() && (next < 0 || heap_.top().release_us < next)) next = heap_.top().release_us;
  return next;
}

}  // namespace testbed
