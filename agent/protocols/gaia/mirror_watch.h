// How a Gaia data center tells a mirror that is slow from one that is cut off (a partition
// of the WAN, a dead link): every data center sends every other one a heartbeat, its
// mirror-clock report repeated, every kHeartbeat; a mirror heard from by nothing for longer
// than its silence bound is presumed cut off until anything arrives from it again.
//
// The paper never says what Gaia does when a mirror falls silent (docs/faults.md): read as
// written, the selective barrier and the mirror clock hold the readers until the mirror's
// data and clocks arrive, so a partition stops every data center that waits on the other
// side (the `block` policy). Under `continue` a data center presumes the silent mirror cut
// off and trains on alone with its own servers (mirror_state.h), and the mirror catches up
// from what waits for it after the heal. The watch itself is the same under both.
//
// A mirror's silence bound (from the controller, gaia_plan.h) covers the longest a
// heartbeat may wait behind data on a working path. Pure: times are given.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <vector>

#include "agent/contracts/gaia/gaia_report.h"

namespace testbed {

class MirrorWatch {
 public:
  using Clock = std::chrono::steady_clock;
  // Two a second: a silence bound of a few heartbeats stays near a second or two on a
  // fast path, and 64-byte headers twice a second cost nothing on any link we emulate.
  static constexpr std::chrono::milliseconds kHeartbeat{500};

  // `silence`: per mirror (node), how long it may be silent before it is presumed cut off.
  MirrorWatch(std::map<int, std::chrono::milliseconds> silence, Clock::time_point now);

  // The run starts: every mirror counts as heard now. Setup may take longer than any bound
  // (other data centers loading their data), and silence before the start is not a cut.
  void start(Clock::time_point now);
  // Anything arrived from `node`. Returns true when it was presumed cut off until now.
  bool heard(int node, Clock::time_point now);
  // Mirrors silent past their bound, newly presumed cut off.
  std::vector<int> expired(Clock::time_point now);
  // Whether a heartbeat is due to every mirror; when it is, the next is a kHeartbeat later.
  bool heartbeat_due(Clock::time_point now);
  // The next time expired() or heartbeat_due() may have something to say.
  Clock::time_point next_deadline() const;
  bool cut(int node) const;

  // Per mirror: its bound, the longest silence seen while it was not presumed cut off (how
  // near a working path came to the bound), how often and how long it was presumed cut.
  std::map<uint64_t, GaiaMirrorView> views(Clock::time_point now) const;

 private:
  struct Mirror {
    std::chrono::milliseconds silence{0};
    Clock::time_point last_heard, cut_since;
    bool cut = false;
    double longest_silence_s = 0;
    uint64_t cuts = 0;
    double cut_s = 0;
  };
  std::map<int, Mirror> mirrors_;
  Clock::time_point next_heartbeat_;
};

}  // namespace testbed
