#include "agent/protocols/allreduce/tree_allreduce.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace testbed {

TreeAllReduce::TreeAllReduce(size_t values, int workers, int rank)
    : values_(values), workers_(workers), rank_(rank) {
  if (workers < 1 || rank < 0 || rank >= workers)
    throw std::invalid_argument("tree all-reduce: rank " + std::to_string(rank) + " of " +
                                std::to_string(workers));
}

std::vector<int> TreeAllReduce::children() const {
  std::vector<int> c;
  for (int child : {2 * rank_ + 1, 2 * rank_ + 2})
    if (child < workers_) c.push_back(child);
  return c;
}

std::vector<AllReduceMessage> TreeAllReduce::begin(std::vector<float> update) {
  if (update.size() != values_) throw std::invalid_argument("tree all-reduce: wrong update size");
  buffer_ = std::move(update);
  children_left_ = children();
  done_ = false;
  return children_left_.empty() ? subtree_summed() : std::vector<AllReduceMessage>{};
}

std::vector<AllReduceMessage> TreeAllReduce::subtree_summed() {
  if (rank_ == 0) return down();
  round(buffer_, 0, buffer_.size());  // overwritten by the sum coming down
  return {{parent(), kUp, buffer_}};
}

std::vector<AllReduceMessage> TreeAllReduce::down() {
  done_ = true;
  round(buffer_, 0, buffer_.size());  // the root keeps the sum its subtree decodes
  std::vector<AllReduceMessage> out;
  for (int child : children()) out.push_back({child, kDown, buffer_});
  return out;
}

std::vector<AllReduceMessage> TreeAllReduce::incoming(int from, uint32_t tag,
                                                      std::vector<float> values) {
  const auto refuse = [&](const std::string& why) {
    return std::runtime_error("tree all-reduce: worker " + std::to_string(rank_) + " got " + why +
                              " from worker " + std::to_string(from));
  };
  if (values.size() != values_) throw refuse("a message of wrong size");
  if (tag == kDown) {
    if (from != parent() || done_ || !children_left_.empty()) throw refuse("an unexpected sum");
    buffer_ = std::move(values);
    return down();
  }
  const auto child = std::find(children_left_.begin(), children_left_.end(), from);
  if (tag != kUp || child == children_left_.end()) throw refuse("an unexpected partial sum");
  children_left_.erase(child);
  for (size_t i = 0; i < values_; ++i) buffer_[i] += values[i];
  return children_left_.empty() ? subtree_summed() : std::vector<AllReduceMessage>{};
}

}  // namespace testbed
