#include "agent/protocols/allreduce/reduce_channel.h"

#include <algorithm>
#include <stdexcept>

#include "agent/transport/wire.h"

namespace testbed {

ReduceChannel::ReduceChannel(AgentLink& link, const std::string& algorithm,
                             std::vector<int> workers, int rank, size_t values,
                             const ValueCodec* encoding)
    : link_(link),
      algorithm_(algorithm),
      workers_(std::move(workers)),
      rank_(rank),
      encoding_(encoding),
      reduce_(make_all_reduce(algorithm, values, static_cast<int>(workers_.size()), rank)),
      values_(values),
      reducing_values_(values) {
  reduce_->set_encoding(encoding_);
}

void ReduceChannel::send(std::vector<AllReduceMessage> messages) {
  for (auto& m : messages) {
    WireHeader h;
    h.kind = WireKind::kRing;
    h.flags = kDense;
    h.origin = link_.self();
    h.dest = workers_.at(static_cast<size_t>(m.to));
    h.iteration = round_;
    h.chunk = m.tag;
    h.chunk_kind = encoding_ ? encoding_->id : 0;
    link_.van().send_kv(h.dest, h, {}, m.values);
  }
}

bool ReduceChannel::incoming(int from, uint32_t tag, std::vector<float> values) {
  std::vector<AllReduceMessage> out;
  try {
    out = reduce_->incoming(from, tag, std::move(values));
  } catch (const std::exception&) {
    ++dropped_;
    return false;
  }
  send(std::move(out));
  if (!reduce_->done()) return false;
  reducing_ = false;
  last_done_ = round_;
  return true;
}

bool ReduceChannel::begin(uint64_t round, std::vector<float> values) {
  if (values.size() > values_) throw std::invalid_argument("reduce channel: a round too long");
  if (values.size() != reducing_values_) {
    reduce_ = make_all_reduce(algorithm_, values.size(), static_cast<int>(workers_.size()), rank_);
    reduce_->set_encoding(encoding_);
    reducing_values_ = values.size();
  }
  round_ = round;
  reducing_ = true;
  send(reduce_->begin(std::move(values)));
  if (reduce_->done()) {
    reducing_ = false;
    last_done_ = round_;
    return true;
  }
  const auto it = early_.find(round);
  if (it == early_.end()) return false;
  std::vector<Early> early = std::move(it->second);
  early_.erase(it);
  for (auto& e : early)
    if (reducing_ && incoming(e.from, e.tag, std::move(e.values))) return true;
  return false;
}

bool ReduceChannel::take(Received r) {
  const auto origin = std::find(workers_.begin(), workers_.end(), r.header.origin);
  const uint64_t round = r.header.iteration;
  if (origin == workers_.end() || r.values.size() > values_ ||
      (last_done_ && round <= *last_done_)) {
    ++dropped_;
    return false;
  }
  const int from = static_cast<int>(origin - workers_.begin());
  if (reducing_ && round == round_) return incoming(from, r.header.chunk, std::move(r.values));
  // Rounds follow one another, and no peer ends a round without this worker's part: what
  // may come early is the round after the one under way (a neighbour that finished it
  // first), or the next one while this worker computes, and no more of it than a round
  // receives (a ring's 2(W-1) segments; a tree's fewer). Anything else would only grow the
  // buffer.
  const uint64_t expected = reducing_ ? round_ + 1 : last_done_ ? *last_done_ + 1 : 0;
  auto& kept = early_[round];
  if (round != expected || kept.size() >= 2 * workers_.size()) {
    if (kept.empty()) early_.erase(round);
    ++dropped_;
    return false;
  }
  kept.push_back({from, r.header.chunk, std::move(r.values)});
  return false;
}

}  // namespace testbed
