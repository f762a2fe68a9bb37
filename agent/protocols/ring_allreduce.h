// Ring all-reduce (MLfabric's RR-Sync baseline, the NCCL/MPI ring): W workers in a ring,
// the model cut into W segments. In 2(W-1) steps each worker sends one segment to the
// next worker and receives one from the previous: for the first W-1 (reduce-scatter) it
// adds what it receives to its own, after which worker r holds the whole sum of segment
// r+1; for the last W-1 (all-gather) it keeps what it receives. Each worker sends
// 2(W-1)/W of the model per clock and every link of the ring carries the same, so the
// ring runs at its slowest link and its slowest worker, every clock.
//
// Pure: which segment goes and comes at each step, and the sums; the protocol moves them.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace testbed {

class RingAllReduce {
 public:
  RingAllReduce(size_t values, int workers, int rank);

  int steps() const { return 2 * (workers_ - 1); }
  // [begin, end) of segment `s` (the last takes the remainder).
  std::pair<size_t, size_t> segment(int s) const;
  int sent_at(int step) const;      // the segment this worker sends at `step`
  int received_at(int step) const;  // the segment it receives at `step`

  // Starts a clock with this worker's update (values() long).
  void begin(std::vector<float> update);
  // What to send at `step`.
  std::vector<float> outgoing(int step) const;
  // What the previous worker sent at `step`: added (reduce-scatter) or kept (all-gather).
  void incoming(int step, const std::vector<float>& values);
  // After the last step: the sum of every worker's update, the same on every worker.
  const std::vector<float>& sum() const { return buffer_; }

 private:
  size_t values_;
  int workers_, rank_;
  std::vector<float> buffer_;
};

}  // namespace testbed
