// Whether a shaped link direction delivers its configured rate when it has work: the
// fraction of the run it was backlogged, and the rate it achieved then against the rate
// configured then, from the sender's HTB class (bytes sent, packets waiting, rate).
//
// An interval between two samples counts as backlogged when packets waited at both ends
// and the configured rate did not change in between. A queue that emptied and refilled
// inside the interval makes it look slower than it was, so the ratio errs low, towards a
// warning, never towards a false all-clear; sampling every 200 ms keeps that rare for
// bulk transfers. Directions backlogged for less than kMinJudgedS are not judged.
#pragma once

#include <cstdint>
#include <optional>

namespace testbed {

struct BacklogSample {
  double t_s = 0;
  uint64_t sent_bytes = 0;        // the class's counter
  uint32_t backlog_packets = 0;   // waiting in its leaf
  uint64_t rate_bytes_per_s = 0;  // configured
};

class BacklogMeter {
 public:
  // Five 200 ms intervals: less than that says little about a rate.
  static constexpr double kMinJudgedS = 1.0;

  void add(const BacklogSample& s);
  double observed_s() const { return observed_s_; }
  double backlogged_s() const { return backlogged_s_; }
  double backlogged_share() const { return observed_s_ > 0 ? backlogged_s_ / observed_s_ : 0; }
  // Bytes sent while backlogged over what the configured rate allowed then.
  std::optional<double> rate_ratio() const;

 private:
  std::optional<BacklogSample> last_;
  double observed_s_ = 0, backlogged_s_ = 0;
  double sent_ = 0, allowed_ = 0;
};

}  // namespace testbed
