// DRPS's worker-selection parallel model (WSP, Sec. 6 and Alg. 4), as one server shard
// runs it. When a worker asks for the parameters of its next clock, the shard weighs each
// choice -- answer now, or wait until worker k's next update arrives -- by the gain of
// Eq. 7, from the last iteration times of the ITTable (Sec. 6.3), and never lets the read
// miss more than delta clocks of any worker (the staleness bound, as SSP's).
//
// Eq. 7 lost its symbols in the text we have; we read it as
//   gain(wait for k) = - t_k / TE_r - 1/(W-1) * sum over l != r of ln(1 + m_l')
// where r is the requesting worker, TE_r its last iteration time, t_k how long until k's
// next update is expected (its last start plus its last iteration time), m_l the clocks
// of worker l the read would miss, and m_l' = m_l - 1 for every worker expected to arrive
// no later than k (their update comes while r waits: "the staleness of workers finishing
// the current iterations before worker_i will be eliminated"). Answering now is k = none,
// t = 0. ln(1 + m) is 0 for a worker that is level, as the paper's ln(I_i + 1 - I_l).
//
// The waiting sets (Sec. 6.3): the requester and the workers it waits for are answered
// together once every one of them has asked for its next clock; a worker that asks while
// it is in someone's waiting set is held there and makes no choice of its own. Only
// workers that are computing (not waiting themselves) are waited for, so every set fills.
// The first clock is synchronous: the ITTable needs every worker's iteration time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace testbed {

struct WspCounters {
  uint64_t choices = 0;        // requests that made a choice (not held in a waiting set)
  uint64_t waited = 0;         // ... that chose to wait for someone
  uint64_t bound_forced = 0;   // ... where answering now would have passed delta
  uint64_t held = 0;           // requests held in another worker's waiting set
  double expected_wait_s = 0;  // the waits chosen, as the ITTable estimated them
};

class WspSelector {
 public:
  WspSelector(int workers, int delta);

  // Worker `w` asks for the parameters of clock `clock` (it has pushed `clock` updates);
  // `pushes` are every worker's pushes as the shard counts them.
  void request(int w, uint64_t clock, const std::vector<uint64_t>& pushes, int64_t now_ns);
  // Whether `w`'s request may be answered as far as the waiting sets go (the shard checks
  // delta itself, as for SSP).
  bool may_answer(int w) const;
  // `w` was answered at `now_ns`: its next iteration starts (Ts of the ITTable).
  void answered(int w, int64_t now_ns);

  const WspCounters& counters() const { return counters_; }
  int delta() const { return delta_; }

  // The choice Eq. 7 makes for requester r, exposed for tests: the worker waited for
  // (none: answer now) and each option's gain, keyed by the worker waited for (-1: none).
  struct Choice {
    std::optional<int> wait_for;
    std::map<int, double> gains;
    bool bound_forced = false;
    double wait_s = 0;
    std::vector<int> waiting_set;
  };
  Choice choose(int r, const std::vector<uint64_t>& pushes, int64_t now_ns) const;

 private:
  struct Row {  // the ITTable: start of the iteration under way, its last length
    int64_t start_ns = -1;
    double iter_s = -1;   // unknown until a whole iteration was seen
    bool waiting = true;  // asked and not answered yet
  };
  struct WaitingSet {
    std::set<int> members;  // to arrive: the requester's own request is already in
    std::set<int> held;     // arrived and not answered
  };

  int workers_, delta_;
  std::vector<Row> table_;
  std::vector<WaitingSet> sets_;  // open ones
  WspCounters counters_;
};

}  // namespace testbed
