#include "agent/protocols/allreduce/ring_allreduce.h"

#include <stdexcept>
#include <string>

namespace testbed {

RingAllReduce::RingAllReduce(size_t values, int workers, int rank)
    : values_(values), workers_(workers), rank_(rank) {
  if (workers < 1 || rank < 0 || rank >= workers)
    throw std::invalid_argument("ring all-reduce: rank " + std::to_string(rank) + " of " +
                                std::to_string(workers));
}

std::pair<size_t, size_t> RingAllReduce::segment(int s) const {
  const size_t per = values_ / static_cast<size_t>(workers_);
  const size_t begin = per * static_cast<size_t>(s);
  return {begin, s == workers_ - 1 ? values_ : begin + per};
}

namespace {
int wrap(int i, int n) {
  return ((i % n) + n) % n;
}
}  // namespace

// Reduce-scatter: at step s worker r sends segment r - s and receives r - s - 1, so after
// W-1 steps it has summed all of segment r + 1. All-gather: it passes that complete
// segment on, then each one it receives.
int RingAllReduce::sent_at(int step) const {
  return step < workers_ - 1 ? wrap(rank_ - step, workers_)
                             : wrap(rank_ + 1 - (step - (workers_ - 1)), workers_);
}

int RingAllReduce::received_at(int step) const {
  return step < workers_ - 1 ? wrap(rank_ - step - 1, workers_)
                             : wrap(rank_ - (step - (workers_ - 1)), workers_);
}

std::vector<AllReduceMessage> RingAllReduce::begin(std::vector<float> update) {
  if (update.size() != values_) throw std::invalid_argument("ring all-reduce: wrong update size");
  buffer_ = std::move(update);
  step_ = 0;
  ahead_.clear();
  if (done()) return {};  // one worker: its update is the sum
  return {outgoing(0)};
}

AllReduceMessage RingAllReduce::outgoing(int step) {
  const auto [b, e] = segment(sent_at(step));
  // A segment sent in the reduce-scatter is not read here again until the all-gather
  // overwrites it; the one this worker completes is sent first in the all-gather, so its
  // own copy becomes the rounded one its peers keep.
  round(buffer_, b, e);
  return {wrap(rank_ + 1, workers_),
          static_cast<uint32_t>(step),
          {buffer_.begin() + static_cast<std::ptrdiff_t>(b),
           buffer_.begin() + static_cast<std::ptrdiff_t>(e)}};
}

void RingAllReduce::take(int step, const std::vector<float>& values) {
  const auto [b, e] = segment(received_at(step));
  if (values.size() != e - b) throw std::runtime_error("ring all-reduce: a segment of wrong size");
  const bool reduce = step < workers_ - 1;
  for (size_t i = 0; i < values.size(); ++i)
    buffer_[b + i] = reduce ? buffer_[b + i] + values[i] : values[i];
}

std::vector<AllReduceMessage> RingAllReduce::incoming(int from, uint32_t tag,
                                                      std::vector<float> values) {
  const auto step = static_cast<int>(tag);
  if (from != wrap(rank_ - 1, workers_) || step < step_ || step >= steps())
    throw std::runtime_error("ring all-reduce: worker " + std::to_string(rank_) + " got step " +
                             std::to_string(step) + " from worker " + std::to_string(from) +
                             " at step " + std::to_string(step_));
  ahead_[step] = std::move(values);
  // Each step's segment goes on only once the steps before it have been taken.
  std::vector<AllReduceMessage> out;
  for (auto it = ahead_.find(step_); it != ahead_.end(); it = ahead_.find(step_)) {
    take(step_, it->second);
    ahead_.erase(it);
    if (++step_ < steps()) out.push_back(outgoing(step_));
  }
  return out;
}

}  // namespace testbed
