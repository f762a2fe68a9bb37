// Ring all-reduce (MLfabric's RR-Sync baseline, the NCCL/MPI ring): W workers in a ring,
// the model cut into W segments. In 2(W-1) steps each worker sends one segment to the
// next worker and receives one from the previous: for the first W-1 (reduce-scatter) it
// adds what it receives to its own, after which worker r holds the whole sum of segment
// r+1; for the last W-1 (all-gather) it keeps what it receives. Each worker sends
// 2(W-1)/W of the model per clock and every link of the ring carries the same, so the
// ring runs at its slowest link and its slowest worker, every clock.
//
// Pure: which segment goes and comes at each step, and the sums; a message's tag is its
// step, and one that comes ahead of its step waits here until the steps before it are done.
#pragma once

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "agent/protocols/allreduce/all_reduce.h"

namespace testbed {

class RingAllReduce : public AllReduce {
 public:
  RingAllReduce(size_t values, int workers, int rank);

  std::vector<AllReduceMessage> begin(std::vector<float> update) override;
  std::vector<AllReduceMessage> incoming(int from, uint32_t tag,
                                         std::vector<float> values) override;
  bool done() const override { return step_ == steps(); }
  const std::vector<float>& sum() const override { return buffer_; }

  int steps() const { return 2 * (workers_ - 1); }
  // [begin, end) of segment `s` (the last takes the remainder).
  std::pair<size_t, size_t> segment(int s) const;
  int sent_at(int step) const;      // the segment this worker sends at `step`
  int received_at(int step) const;  // the segment it receives at `step`

 private:
  // To the next worker; the segment is rounded to the wire's encoding in place first.
  AllReduceMessage outgoing(int step);
  // What the previous worker sent at `step`: added (reduce-scatter) or kept (all-gather).
  void take(int step, const std::vector<float>& values);

  size_t values_;
  int workers_, rank_;
  int step_ = 0;
  std::vector<float> buffer_;
  std::map<int, std::vector<float>> ahead_;  // step -> a segment that came before its step
};

}  // namespace testbed
