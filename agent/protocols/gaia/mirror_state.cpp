#include "agent/protocols/gaia/mirror_state.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace testbed {

std::string to_string(ReadBlock b) {
  switch (b) {
    case ReadBlock::kNone:
      return "none";
    case ReadBlock::kMirrorClock:
      return "mirror-clock";
    case ReadBlock::kBarrier:
      return "selective-barrier";
  }
  return "?";
}

MirrorState::MirrorState(int data_centers, int self, size_t parameters, int ds)
    : self_(self),
      ds_(ds),
      clocks_(static_cast<size_t>(data_centers), 0),
      cut_(static_cast<size_t>(data_centers), false),
      barred_(parameters, 0),
      pending_(static_cast<size_t>(data_centers)) {}

void MirrorState::clock_reported(int dc, uint64_t clocks) {
  auto& c = clocks_.at(static_cast<size_t>(dc));
  c = std::max(c, clocks);  // the control path may reorder nothing, but never go back
}

void MirrorState::barrier(int dc, uint64_t seq, const std::vector<uint32_t>& keys) {
  // A peer's keys: all checked before any is counted, so a bad barrier changes nothing.
  for (uint32_t k : keys)
    if (k >= barred_.size()) throw std::runtime_error("a barrier names a key past the model");
  auto& keys_of = pending_.at(static_cast<size_t>(dc))[seq];
  for (uint32_t k : keys) {
    if (barred_[k]++ == 0) ++barred_total_;
    keys_of.push_back(k);
  }
}

void MirrorState::arrived(int dc, uint64_t seq) {
  auto& p = pending_.at(static_cast<size_t>(dc));
  for (auto it = p.begin(); it != p.end() && it->first <= seq; it = p.erase(it))
    for (uint32_t k : it->second)
      if (--barred_[k] == 0) --barred_total_;
}

void MirrorState::set_cut(int dc, bool cut) {
  cut_.at(static_cast<size_t>(dc)) = cut;
  if (!cut) return;
  // What it announced may never come while it is cut off: its readers go on without it.
  // Data that does arrive later is still applied; its barriers are simply gone.
  auto& p = pending_.at(static_cast<size_t>(dc));
  for (const auto& [seq, keys] : p)
    for (uint32_t k : keys)
      if (--barred_[k] == 0) --barred_total_;
  p.clear();
}

uint64_t MirrorState::slowest_mirror() const {
  uint64_t slowest = std::numeric_limits<uint64_t>::max();
  for (size_t dc = 0; dc < clocks_.size(); ++dc)
    if (static_cast<int>(dc) != self_ && !cut_[dc]) slowest = std::min(slowest, clocks_[dc]);
  return slowest;
}

ReadBlock MirrorState::can_read(uint64_t clock, const std::vector<uint32_t>& keys) const {
  // Reading for `clock` means this server has ended `clock` clocks.
  const uint64_t slowest = slowest_mirror();
  if (ds_ >= 0 && slowest != std::numeric_limits<uint64_t>::max() &&
      clock > slowest + static_cast<uint64_t>(ds_))
    return ReadBlock::kMirrorClock;
  if (barred_total_ == 0) return ReadBlock::kNone;
  if (keys.empty()) return ReadBlock::kBarrier;
  for (uint32_t k : keys)
    if (barred_[k] > 0) return ReadBlock::kBarrier;
  return ReadBlock::kNone;
}

}  // namespace testbed
