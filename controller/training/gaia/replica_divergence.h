// How far a Gaia run's data centers' replicas drift apart, from the digests the controller
// polls (agent/contracts/gaia/replica_digest.h): each poll, the largest distance between any two
// replicas relative to their mean norm, and the significant updates waiting for the WAN.
// With a fault window (a partition, a cut link: its first and last second in the run),
// the figures a reader of docs/faults.md wants: the divergence before the fault, at its
// heal and at its peak, and how long after the heal the mirrors took to bring it back.
// Pure: the session feeds it what arrives.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <vector>

#include "agent/contracts/gaia/replica_digest.h"

namespace testbed {

struct DivergenceSample {
  double t = 0;          // the poll's time, s since the run's start
  double relative = 0;   // max over pairs of |x_a - x_b| / mean(|x_a|, |x_b|)
  double distance = 0;   // that pair's |x_a - x_b|
  uint64_t waiting = 0;  // updates waiting for a mirror, summed over data centers
};

struct FaultWindow {
  double from_s = 0, to_s = 0;  // s since the run's start; to_s: the heal
};

class ReplicaDivergence {
 public:
  // Caught up: back to where the replicas were when the fault began (the median of the
  // polls in the kBeforeS before it). Gaia's replicas always differ by what the filter
  // holds back and the WAN has not yet carried, and by how much depends on the run's stage
  // (early clocks send more): the run's own level at the fault is the one level that is
  // fair to it. A second: five polls at the default eval interval, so one poll taken in a
  // burst does not set the level alone.
  static constexpr double kBeforeS = 1.0;

  explicit ReplicaDivergence(size_t data_centers) : data_centers_(data_centers) {}

  // A poll sent at `t`; the digests that answer it follow.
  void polled(double t);
  // Whether the last poll is answered by every data center (or none was sent).
  bool answered() const { return replies_.empty() && !waiting_; }
  double polled_at() const { return polled_at_; }
  // Data center `node`'s reply to the last poll.
  void reply(int node, const ReplicaDigest& d);

  const std::vector<DivergenceSample>& samples() const { return samples_; }
  // {method, samples: [[t, relative, waiting]], median, max, and with a fault: before
  //  (null with no poll before it), at_heal, peak, caught_up_s (null when it never did
  //  within the run, or there is no level before to come back to)}.
  nlohmann::json summary(const std::optional<FaultWindow>& fault) const;

 private:
  size_t data_centers_;
  bool waiting_ = false;
  double polled_at_ = 0;
  std::map<int, ReplicaDigest> replies_;
  std::vector<DivergenceSample> samples_;
};

}  // namespace testbed
