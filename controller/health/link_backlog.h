// Whether a shaped link direction delivers its configured rate when it has work, from the
// sender's TBF (bytes sent, bytes waiting, rate), sampled every 200 ms.
//
// An interval between two samples counts as backlogged when bytes waited at both ends and
// the configured rate did not change in between. The queue may still have emptied and
// refilled inside it (NetStorm's chunks come in bursts, and a queue sized to one
// bandwidth-delay product holds 20-60 ms of traffic, far less than an interval), so a
// single interval can look slow on a healthy link: on a light host, the aggregate over
// such intervals read 67-85% under chunk traffic. What is judged is therefore the 90th
// percentile of the intervals' ratios: a healthy shaper reaches its rate in its best
// intervals, a starved one in none. Directions with fewer than kMinJudged backlogged
// intervals are not judged.
//
// What it cannot separate: TCP Small Queues keeps only a packet or two per flow in the
// qdisc (the rest waits in the socket), so a window-limited flow (in slow start after
// idle, or held below the pipe by random loss) also leaves bytes queued at both ends
// while the link idles between its bursts. On lossy links that is the rule (a PS run on
// static Internet2, 0.02% loss and a lightly loaded host, read 48-89% on some links), so
// the HealthMonitor judges the ratio on loss-free directions only and reports it on all.
//
// Both ends are not enough when the traffic comes in bursts at a period near the
// interval's. Measured (docs/intellect1.md): an elastic DiLoCo ring across three
// continents in fp32 sends a 9.9 Mbit/s, 9 ms RTT direction one ~50 KB chunk per ring
// step, a ~40 ms burst every ~200 ms; sampled every 200 ms the direction read 35% of its
// rate in every one of its backlogged intervals, in two runs of two. Sampled every 50 ms,
// the same direction was never backlogged for an interval and peaked at 132% of its rate:
// the 200 ms look had caught the queue in a burst at both ends, empty in between. So a
// direction whose queue held a backlog at an interval's start is also looked at inside
// it (probe(), every kProbeMs by the HealthMonitor): one look finding the queue drained
// leaves the interval out. A starved shaper keeps its queue full at every look, and is
// judged as before. The looks cost only the directions backlogged at the last sample.
//
// A backlog of a packet or two is what any passing message leaves: a job of small messages
// (a parameter server's clocks and pushes of a small model) on an idle link is caught with
// a packet queued at both ends of a few intervals, in which little was sent because little
// was asked. Measured: a BSP run with its servers on one node flagged n2->n1 at 38% from 6
// such intervals in 42 s. So an end counts as backlogged only with at least
// kMinBacklogBytes waiting, more than two full-size frames: a shaper that falls behind its
// rate queues many.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace testbed {

struct BacklogSample {
  double t_s = 0;
  uint64_t sent_bytes = 0;        // the class's counter
  uint64_t backlog_bytes = 0;     // waiting in its leaf
  uint64_t rate_bytes_per_s = 0;  // configured
};

class BacklogMeter {
 public:
  // Five 200 ms intervals: a second of backlog; less says little about a rate.
  static constexpr size_t kMinJudged = 5;
  static constexpr double kQuantile = 0.9;
  // Two full-size Ethernet frames (1514 bytes each) and a byte.
  static constexpr uint64_t kMinBacklogBytes = 2 * 1514 + 1;

  void add(const BacklogSample& s);
  // A look inside the interval under way at the bytes waiting: below kMinBacklogBytes,
  // the queue drained, and the interval does not count as backlogged.
  void probe(uint64_t backlog_bytes);
  // Whether the last sample found a backlog: the interval under way is worth looking into.
  bool backlogged_now() const { return last_ && last_->backlog_bytes >= kMinBacklogBytes; }
  double observed_s() const { return observed_s_; }
  double backlogged_s() const { return backlogged_s_; }
  // The judged figure: the kQuantile of the backlogged intervals' sent / allowed.
  std::optional<double> rate_ratio() const;
  // Bytes sent in all backlogged intervals over what the rate allowed (errs low).
  std::optional<double> mean_ratio() const;
  // What the direction carried, backlogged or not: its bytes since the first sample, and
  // its highest rate in one interval (the peak bandwidth a strategy needed of it, as
  // Streaming DiLoCo measures a method: a link at its rate in that interval reads its
  // rate, and would have carried more).
  uint64_t sent_bytes() const { return sent_total_; }
  double peak_bytes_per_s() const { return peak_; }

 private:
  std::optional<BacklogSample> last_;
  bool drained_inside_ = false;  // a probe since the last sample found the queue drained
  double observed_s_ = 0, backlogged_s_ = 0;
  double sent_ = 0, allowed_ = 0;
  uint64_t sent_total_ = 0;
  double peak_ = 0;
  std::vector<double> ratios_;
};

}  // namespace testbed
