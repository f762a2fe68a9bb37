// DRPS's worker-selection parallel model (WSP, Sec. 6 and Alg. 4), as the job's one master
// runs it ("the parallel model adopted by the master determines whether or not to respond
// to the requests of workers", Sec. 6.1). When a worker asks for the parameters of its next
// clock, the master weighs each choice -- answer now, or wait until worker k's next update
// arrives -- by the gain of Eq. 7, from the ITTable (Sec. 6.3), and never lets the read
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
// The ITTable holds what the workers report: an iteration's length is the worker's own
// measure, from its parameters' arrival (Ts, "after returning the parameter") to its next
// request (Te), so a wait the master imposed is never counted as iteration time; its start
// is when the worker said it began. A worker answered but still reading (its word not yet
// in) is due at its answer plus its last read (answer to start) plus its iteration: on a
// disk-resident store the read is most of a clock, and leaving it out made every wait
// look nearly free (estimated 0.01 s, realized 0.36 s on Table 2's LoR, measured).
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

#include "agent/contracts/training_setup.h"

namespace testbed {

// WSP's delta when there is none: no read is ever held by the bound (`--staleness none`).
// Its value is the contract's, which both ends read.
constexpr int kWspNoBound = TrainingSetup::kNoBound;

struct WspCounters {
  uint64_t choices = 0;        // requests that made a choice (not held in a waiting set)
  uint64_t waited = 0;         // ... that chose to wait for someone
  uint64_t bound_forced = 0;   // ... where answering now would have passed delta
  uint64_t held = 0;           // requests held in another worker's waiting set
  double expected_wait_s = 0;  // the waits chosen, as the ITTable estimated them
  double realized_wait_s = 0;  // ... and as long as they lasted
};

// One wait a requester chose: what the ITTable expected, what it took, and whether
// answering at once would have passed delta.
struct WspWait {
  int worker = 0;
  uint64_t clock = 0;
  double estimated_s = 0, realized_s = 0;
  bool forced = false;
};

// A request that may now be answered: worker `worker`'s for clock `clock`.
struct WspGrant {
  int worker = 0;
  uint64_t clock = 0;
  bool operator==(const WspGrant&) const = default;
};

class WspSelector {
 public:
  WspSelector(int workers, int delta);

  // Worker `w` began an iteration at `now_ns` (its parameters arrived).
  void started(int w, int64_t now_ns);
  // Worker `w`, having pushed `clock` updates, asks for the parameters of clock `clock`
  // after an iteration of `iter_s` as it measured it. Returns the requests that may now be
  // answered: w's own when it goes at once, a waiting set's when w completes it, none while
  // w waits or is held.
  std::vector<WspGrant> request(int w, uint64_t clock, double iter_s, int64_t now_ns);

  // Every worker's pushes as the master knows them (the clock it last asked for): what a
  // granted read must reflect.
  const std::vector<uint64_t>& pushes() const { return pushes_; }
  const WspCounters& counters() const { return counters_; }
  const std::vector<WspWait>& waits() const { return waits_; }
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
  Choice choose(int r, int64_t now_ns) const;

 private:
  struct Row {  // the ITTable: start of the iteration under way, its last length
    int64_t start_ns = -1;
    double iter_s = -1;    // unknown until the worker reported a whole iteration
    bool waiting = false;  // asked and not answered yet
    bool started = false;  // its word that the iteration under way began is in
    int64_t answered_ns = -1;
    double read_s = 0;  // its last read: from the answer to the iteration's start
  };
  double due_s(const Row& row) const;  // when its next request is expected
  struct WaitingSet {
    std::set<int> members;  // to arrive: the requester's own request is already in
    std::set<int> held;     // arrived and not answered
    size_t wait = 0;        // its entry in waits_
    int64_t opened_ns = 0;
  };
  void grant(int w, int64_t now_ns, std::vector<WspGrant>& out);

  int workers_, delta_;
  std::vector<Row> table_;
  std::vector<uint64_t> pushes_;
  std::vector<WaitingSet> sets_;  // open ones
  WspCounters counters_;
  std::vector<WspWait> waits_;
};

}  // namespace testbed
