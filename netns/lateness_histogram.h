// How late the delay line released packets against their due time, as a histogram that
// can be subtracted: the delay line keeps cumulative counts for its lifetime, and a run's
// figures are the difference between a snapshot at its end and one at its start.
//
// Buckets are a quarter of an octave wide (bucket b holds lateness L with
// floor(4 log2(L + 1)) = b, L in microseconds), so a quantile read from a bucket's upper
// bound overstates the true value by at most 19% (2^0.25), never understates it; 100
// buckets reach 2^25 us (33 s), later releases count in the last one.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace testbed {

class LatenessHistogram {
 public:
  static constexpr int kBuckets = 100;

  void add(int64_t lateness_us);  // negative (released early) counts as on time
  uint64_t count() const;
  // The upper bound of the bucket holding quantile q (0..1); 0 when empty.
  int64_t quantile_us(double q) const;
  // The largest lateness seen, exactly (cumulative: see max_since()).
  int64_t max_us() const { return max_us_; }
  // The counts added since `earlier`, a snapshot of this histogram.
  LatenessHistogram since(const LatenessHistogram& earlier) const;
  void merge(const LatenessHistogram& other);
  // The run's maximum: exact when the run raised the lifetime maximum, else the upper
  // bound of its highest bucket (capped by the lifetime maximum).
  int64_t max_since(const LatenessHistogram& earlier) const;

  // "b:count b:count ..." for non-empty buckets, then "max:US".
  std::string format() const;
  // Throws std::invalid_argument on malformed text.
  static LatenessHistogram parse(const std::string& text);

  static int bucket_of(int64_t lateness_us);
  static int64_t upper_bound_us(int bucket);

 private:
  std::array<uint64_t, kBuckets> counts_{};
  int64_t max_us_ = 0;
};

}  // namespace testbed
