#include "agent/protocols/tree/tree_aggregator.h"

#include <algorithm>
#include <stdexcept>

namespace testbed {

std::pair<size_t, size_t> TreeAggregator::span(uint32_t chunk) const {
  const size_t begin = size_t{chunk} * chunk_elements_;
  return {begin, std::min(gradient_.size(), begin + chunk_elements_)};
}

std::vector<ChunkMessage> TreeAggregator::start(uint64_t iteration, const SyncPolicy& policy,
                                                std::vector<float> gradient) {
  if (started_ && !done()) throw std::logic_error("start() before the previous iteration finished");
  started_ = true;
  iteration_ = iteration;
  policy_ = policy;
  gradient_ = std::move(gradient);
  result_.assign(gradient_.size(), 0.0f);
  chunks_ = static_cast<uint32_t>((gradient_.size() + chunk_elements_ - 1) / chunk_elements_);
  finished_chunks_ = 0;
  children_.clear();
  for (const auto& tree : policy_.trees) children_.push_back(children_of(tree));
  state_.assign(chunks_, ChunkState{});
  const auto ranges = assign_chunks(policy_, chunks_);
  for (size_t t = 0; t < ranges.size(); ++t) {
    for (uint32_t c = ranges[t].first; c < ranges[t].second; ++c) {
      state_[c].tree = static_cast<int>(t);
      state_[c].waiting = static_cast<int>(children_[t][static_cast<size_t>(self_)].size());
    }
  }
  std::vector<ChunkMessage> out;
  for (uint32_t c = 0; c < chunks_; ++c) {
    if (state_[c].waiting == 0) send_up_or_finish(c, out);
  }
  // Replay what arrived early, in arrival order; later iterations stay held.
  std::vector<ChunkMessage> held;
  held.swap(held_);
  for (auto& m : held) {
    if (m.iteration == iteration_) {
      handle(m, out);
    } else {
      held_.push_back(std::move(m));
    }
  }
  return out;
}

std::vector<ChunkMessage> TreeAggregator::receive(ChunkMessage message) {
  std::vector<ChunkMessage> out;
  if (!started_ || message.iteration > iteration_) {
    held_.push_back(std::move(message));
    return out;
  }
  if (message.iteration < iteration_) {
    throw std::logic_error("a message of finished iteration " + std::to_string(message.iteration));
  }
  handle(message, out);
  return out;
}

void TreeAggregator::handle(ChunkMessage& m, std::vector<ChunkMessage>& out) {
  if (m.chunk >= chunks_) throw std::logic_error("chunk out of range");
  ChunkState& s = state_[m.chunk];
  if (m.kind == ChunkMessage::Kind::kDown) {
    if (s.finished) throw std::logic_error("chunk " + std::to_string(m.chunk) + " finished twice");
    finish(m.chunk, m.data.data(), out);
    return;
  }
  if (s.partial.count(m.from) || s.waiting == 0) {
    throw std::logic_error("chunk " + std::to_string(m.chunk) + " from node " +
                           std::to_string(m.from) + " counted twice");
  }
  s.partial[m.from] = std::move(m.data);
  if (--s.waiting == 0) send_up_or_finish(m.chunk, out);
}

void TreeAggregator::send_up_or_finish(uint32_t chunk, std::vector<ChunkMessage>& out) {
  ChunkState& s = state_[chunk];
  const AggregationTree& tree = policy_.trees[static_cast<size_t>(s.tree)];
  const auto [begin, end] = span(chunk);
  // Own gradient first, then the children in node order: a fixed order per tree, so every
  // run of the same policy sums the same way.
  std::vector<float> sum(gradient_.begin() + static_cast<long>(begin),
                         gradient_.begin() + static_cast<long>(end));
  for (const auto& [child, part] : s.partial) {
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += part[i];
  }
  s.partial.clear();
  if (tree.root == self_) {
    finish(chunk, sum.data(), out);
    return;
  }
  out.push_back({ChunkMessage::Kind::kUp, iteration_, chunk, self_,
                 tree.parent[static_cast<size_t>(self_)], std::move(sum)});
}

void TreeAggregator::finish(uint32_t chunk, const float* data, std::vector<ChunkMessage>& out) {
  ChunkState& s = state_[chunk];
  const auto [begin, end] = span(chunk);
  std::copy(data, data + (end - begin), result_.begin() + static_cast<long>(begin));
  s.finished = true;
  ++finished_chunks_;
  for (int child : children_[static_cast<size_t>(s.tree)][static_cast<size_t>(self_)]) {
    out.push_back({ChunkMessage::Kind::kDown, iteration_, chunk, self_, child,
                   std::vector<float>(result_.begin() + static_cast<long>(begin),
                                      result_.begin() + static_cast<long>(end))});
  }
}

}  // namespace testbed
