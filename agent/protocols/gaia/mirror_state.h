// What a Gaia data center knows of its mirrors (the other data centers' servers holding
// the same parameters), and the two rules that hold its workers back (Sec. 3.4):
//   mirror clock       every mirror reports each clock it ends; a server more than DS
//                      clocks ahead of the slowest mirror blocks its workers' reads until
//                      that mirror catches up;
//   selective barrier  a mirror whose significant updates outrun its WAN link first sends
//                      their indexes; reads of those parameters wait for the values.
// A mirror presumed cut off (mirror_watch.h; the `continue` partition policy) counts in
// neither rule until it is heard again: its barriers are lifted and its clock is left out.
// Pure: the protocol feeds it what arrives and asks it before every read.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace testbed {

enum class ReadBlock { kNone, kMirrorClock, kBarrier };
std::string to_string(ReadBlock b);

class MirrorState {
 public:
  // Data centers by index, `self` among them; `ds` < 0 turns the mirror clock off.
  MirrorState(int data_centers, int self, size_t parameters, int ds);

  // Mirror `dc` has ended `clocks` clocks.
  void clock_reported(int dc, uint64_t clocks);
  // Mirror `dc` announces that its data message `seq` will bring `keys`. Throws, changing
  // nothing, when a key is past the model (a peer's message, dropped by the caller).
  void barrier(int dc, uint64_t seq, const std::vector<uint32_t>& keys);
  // Mirror `dc`'s data message `seq` arrived: lifts its barriers up to `seq` (a message
  // merges the updates of every barrier before it on that link).
  void arrived(int dc, uint64_t seq);
  // Whether this data center's workers may read `keys` (empty: every key) for `clock`.
  ReadBlock can_read(uint64_t clock, const std::vector<uint32_t>& keys) const;

  // Mirror `dc` is presumed cut off (its barriers are lifted; the mirror clock leaves it
  // out), or is heard again (it counts again, from the clock it reports).
  void set_cut(int dc, bool cut);
  bool cut(int dc) const { return cut_.at(static_cast<size_t>(dc)); }

  // The fewest clocks any mirror not cut off has ended (UINT64_MAX with none).
  uint64_t slowest_mirror() const;
  size_t barred_keys() const { return barred_total_; }

 private:
  int self_;
  int ds_;
  std::vector<uint64_t> clocks_;  // per data center: clocks ended, as reported
  std::vector<bool> cut_;         // per data center: presumed cut off
  std::vector<uint16_t> barred_;  // per key: barriers not yet lifted
  size_t barred_total_ = 0;       // keys with at least one barrier
  std::vector<std::map<uint64_t, std::vector<uint32_t>>> pending_;  // per dc: seq -> keys
};

}  // namespace testbed
