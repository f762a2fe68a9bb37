// MLfabric's order at the server: updates carry the place the scheduler gave them (seq) and
// are applied in that order, whatever order the network delivers them in (a transfer
// scheduled first may arrive after a later one when the link runs slower than reported).
// An aggregator's sum covers several consecutive places (update_sums.h) and applies as one.
// Pure; the protocol hands it what arrives and applies what it returns.
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace testbed {

template <typename Update>
class OrderedPushes {
 public:
  // `u` covers places seq .. seq + span - 1. Throws when a place arrives twice or one
  // already applied arrives again: an update counted twice is a defect the run must not hide.
  void add(uint64_t seq, Update u, uint64_t span = 1) {
    const auto after = waiting_.lower_bound(seq);
    const bool overlaps_before =
        after != waiting_.begin() && std::prev(after)->first + std::prev(after)->second.first > seq;
    const bool overlaps_after = after != waiting_.end() && after->first < seq + span;
    if (span == 0 || seq < next_ || overlaps_before || overlaps_after)
      throw std::runtime_error("update " + std::to_string(seq) + " arrived twice");
    waiting_.emplace(seq, std::make_pair(span, std::move(u)));
    if (seq != next_) ++early_;
  }
  // The next update in order, when it is here, and how many places it covers.
  std::optional<std::pair<Update, uint64_t>> next() {
    const auto it = waiting_.find(next_);
    if (it == waiting_.end()) return std::nullopt;
    auto [span, u] = std::move(it->second);
    waiting_.erase(it);
    next_ += span;
    return std::make_pair(std::move(u), span);
  }
  // A replica promoted to server (MLfabric's failover): places below `first` will never
  // come (they died with the server, or are still on their way from before), so applying
  // goes on from `first`. Returns how many places were skipped; what waited below `first`
  // is discarded.
  uint64_t skip_to(uint64_t first) {
    if (first < next_) throw std::runtime_error("a skip back to place " + std::to_string(first));
    const uint64_t skipped = first - next_;
    waiting_.erase(waiting_.begin(), waiting_.lower_bound(first));
    next_ = first;
    return skipped;
  }
  uint64_t applied() const { return next_; }  // places applied: 0 .. applied() - 1
  uint64_t early() const { return early_; }   // arrived before an earlier place
  size_t waiting() const { return waiting_.size(); }

 private:
  uint64_t next_ = 0, early_ = 0;
  std::map<uint64_t, std::pair<uint64_t, Update>> waiting_;  // first place -> (span, update)
};

}  // namespace testbed
