// MLfabric's order at the server: updates carry the place the scheduler gave them (seq) and
// are applied in that order, whatever order the network delivers them in (a transfer
// scheduled first may arrive after a later one when the link runs slower than reported).
// Pure; the protocol hands it what arrives and applies what it returns.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace testbed {

template <typename Update>
class OrderedPushes {
 public:
  // Throws when the same place arrives twice or one already applied arrives again: an
  // update counted twice is a defect the run must not hide.
  void add(uint64_t seq, Update u) {
    if (seq < next_ || !waiting_.emplace(seq, std::move(u)).second)
      throw std::runtime_error("update " + std::to_string(seq) + " arrived twice");
    if (seq != next_) ++early_;
  }
  // The next update in order, when it is here.
  std::optional<Update> next() {
    const auto it = waiting_.find(next_);
    if (it == waiting_.end()) return std::nullopt;
    Update u = std::move(it->second);
    waiting_.erase(it);
    ++next_;
    return u;
  }
  uint64_t applied() const { return next_; }  // places applied: 0 .. applied() - 1
  uint64_t early() const { return early_; }   // arrived before an earlier place
  size_t waiting() const { return waiting_.size(); }

 private:
  uint64_t next_ = 0, early_ = 0;
  std::map<uint64_t, Update> waiting_;
};

}  // namespace testbed
