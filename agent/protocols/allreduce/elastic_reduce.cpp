#include "agent/protocols/allreduce/elastic_reduce.h"

#include <algorithm>

#include "agent/contracts/message_fields.h"

namespace testbed {

namespace {
// A ring's attempt sends each member 2(W - 1) frames; four attempts' worth over the whole
// lab bounds what a member ahead of this one can make it keep.
constexpr size_t kEarlyFramesPerNode = 8;
}  // namespace

ElasticReduce::ElasticReduce(AgentLink& link, std::string algorithm, size_t nodes, size_t values,
                             const ValueCodec* encoding)
    : link_(link),
      algorithm_(std::move(algorithm)),
      nodes_(nodes),
      values_(values),
      encoding_(encoding) {}

bool ElasticReduce::reduce(const ReduceCommand& c) {
  if (begun_ && c.seq <= seq_) throw ContractError("reduce.seq: an attempt not after the last");
  const auto self = std::find(c.members.begin(), c.members.end(), link_.self());
  if (self == c.members.end()) throw ContractError("reduce.members: this worker is not among them");
  // A fresh channel each attempt: its ring is over these members, its frames this seq's.
  channel_ = std::make_unique<ReduceChannel>(
      link_, algorithm_, c.members, static_cast<int>(self - c.members.begin()), values_, encoding_);
  seq_ = c.seq;
  begun_ = true;
  // Attempts before this one are over: what they left waiting goes.
  for (auto it = early_.begin(); it != early_.end() && it->first < seq_;) {
    dropped_ += it->second.size();
    early_frames_ -= it->second.size();
    it = early_.erase(it);
  }
  if (channel_->begin(seq_, held_)) return true;
  const auto it = early_.find(seq_);
  if (it == early_.end()) return false;
  std::vector<Received> early = std::move(it->second);
  early_frames_ -= early.size();
  early_.erase(it);
  bool done = false;
  for (auto& r : early) done = channel_->take(std::move(r)) || done;
  return done;
}

bool ElasticReduce::take(Received r) {
  const uint64_t seq = r.header.iteration;
  if (begun_ && seq == seq_) return channel_->take(std::move(r));
  if ((begun_ && seq < seq_) || r.header.origin < 0 ||
      static_cast<size_t>(r.header.origin) >= nodes_ ||
      early_frames_ >= kEarlyFramesPerNode * nodes_) {
    ++dropped_;
    return false;
  }
  early_[seq].push_back(std::move(r));
  ++early_frames_;
  return false;
}

}  // namespace testbed
