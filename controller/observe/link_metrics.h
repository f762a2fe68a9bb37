// The link half of the testbed's Prometheus metrics: per link direction, what is
// configured now (rate, delay, jitter, loss; from current.json, so schedules and `link set`
// both show), what the kernel counted on the sending interface's TBF, and the lag of
// the last scheduled change (from timeline.csv).
//
// Sampling reads netlink, which is not thread-safe, so the exporter samples on its own
// thread once a second and a scrape only serializes the latest snapshot.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "controller/dynamics/link_control.h"
#include "netns/kernel.h"

namespace testbed {

struct DirectionSample {
  std::string node, peer;  // sender and receiver
  size_t link = 0;
  double rate_bits_per_s = 0, delay_s = 0, jitter_s = 0, loss_ratio = 0;
  uint64_t transmit_bytes = 0, transmit_packets = 0, dropped_packets = 0;
  double last_lag_s = 0;           // of the last scheduled change, 0 before the first
  uint64_t scheduled_changes = 0;  // applied so far by the timeline
  bool down = false;               // cut by a fault (`state: down`, `testbed link down`)
  // The cross traffic it delivered so far (kernel.h, TrafficCounters), counted where it
  // arrives; unset in a lab without cross traffic, or when the receiver is another host's.
  std::optional<uint64_t> background_bytes;
  // Each running job's own bytes it delivered since the job began (job_accounting.h), by
  // the job's label and slot ("bsp/1"); empty when no job runs.
  std::map<std::string, uint64_t> job_bytes;
};

// Follows timeline.csv as it grows: the last lag and the number of changes per direction.
class TimelineTail {
 public:
  explicit TimelineTail(std::string path) : path_(std::move(path)) {}
  void poll();  // reads what was appended since the last call
  struct Entry {
    double last_lag_s = 0;
    uint64_t changes = 0;
  };
  const std::map<std::pair<std::string, std::string>, Entry>& entries() const { return entries_; }
  // Faults applied so far, by kind: link_down and link_up (a direction's state changing),
  // node_crash, node_pause and node_resume (a node's row).
  const std::map<std::string, uint64_t>& fault_events() const { return fault_events_; }
  // One CSV line; exposed for tests.
  void add_line(const std::string& line);

 private:
  std::string path_;
  uint64_t offset_ = 0;
  std::string partial_;
  std::map<std::pair<std::string, std::string>, Entry> entries_;           // (from, to)
  std::map<std::pair<std::string, std::string>, std::string> link_state_;  // up or down
  std::map<std::string, uint64_t> fault_events_;
};

// Nodes' states (running, paused, crashed; nodes.json) and the faults counted so far.
struct FaultSnapshot {
  std::map<std::string, std::string> node_states;  // every node of the lab
  std::map<std::string, uint64_t> events;          // TimelineTail::fault_events
};
std::vector<prometheus::MetricFamily> fault_families(const std::string& lab,
                                                     const FaultSnapshot& faults);

std::vector<DirectionSample> sample_links(const std::vector<LiveDirection>& directions,
                                          Kernel& kernel, const TimelineTail& timeline);

// Bytes each direction's sender has transmitted so far, by "from>to": the kernel's TBF
// counters, read twice around a run to give its WAN bytes.
std::map<std::string, uint64_t> transmitted_bytes(const std::vector<LiveDirection>& directions,
                                                  Kernel& kernel);
// What each direction has delivered so far, the cross traffic and the rest apart, by
// "from>to", for the directions whose receiving end is on this host (its counters are
// there); none without cross traffic.
std::map<std::string, Kernel::TrafficCount> received_traffic(
    const std::vector<LiveDirection>& directions, Kernel& kernel);

// What each direction sent between two readings; a counter that went back (its class
// rebuilt) counts from zero.
std::map<std::string, uint64_t> bytes_sent_between(const std::map<std::string, uint64_t>& before,
                                                   const std::map<std::string, uint64_t>& after);

std::vector<prometheus::MetricFamily> link_families(const std::string& lab,
                                                    const std::vector<DirectionSample>& samples);

class LinkCollectable : public prometheus::Collectable {
 public:
  explicit LinkCollectable(std::string lab) : lab_(std::move(lab)) {}
  void update(std::vector<DirectionSample> samples);
  void update_faults(FaultSnapshot faults);
  std::vector<prometheus::MetricFamily> Collect() const override;
  // When /metrics was last read (steady clock), so that the exporter samples the links only
  // while someone watches; the epoch when never.
  std::chrono::steady_clock::time_point last_collected() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(last_collected_.load()));
  }

 private:
  std::string lab_;
  mutable std::atomic<std::chrono::steady_clock::rep> last_collected_{0};
  mutable std::mutex mutex_;
  std::vector<DirectionSample> samples_;
  FaultSnapshot faults_;
};

}  // namespace testbed
