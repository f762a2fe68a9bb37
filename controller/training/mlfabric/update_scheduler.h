// MLfabric's scheduler (Sec. 4-5) for one server, as the controller runs it: workers
// announce their ready updates over the control socket, never across the shaped links;
// every batching interval the announced updates are ordered (update_order.h) and each
// worker is told, at its transfer's start, to send (with the update's place in the
// server's order) or that its update is dropped. The network monitor's rates reach the
// ordering t_lag after they were observed (the paper's reporting lag).
//
// Pure: time is passed in, so tests drive it with any clock.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "link_reservations.h"
#include "update_order.h"

namespace testbed {

struct SchedulerOptions {
  double batch_interval_s = 0.1;  // the paper's 100 ms batching interval (Sec. 7)
  double report_lag_s = 0.2;      // t_lag, the paper's default (Sec. 7)
  uint64_t delay_bound = 30;      // tau_max, in model versions
};

// What a worker is told: send now as the server's update number `seq`, or drop it.
struct SchedulerDecision {
  int worker = 0;
  bool send = false;
  uint64_t seq = 0;
};

class UpdateScheduler {
 public:
  // paths[w]: worker w's path to the server, as link indexes of the monitor's rates.
  UpdateScheduler(SchedulerOptions options, std::vector<LinkPath> paths);

  // The monitor observed these rates (bits/s per link) at `now_s`; a change reaches the
  // ordering t_lag later.
  void observe_rates(std::map<size_t, double> bits_per_s, double now_s);
  void announce(int worker, uint64_t version, double bytes, double now_s);
  // Runs the batches due by `now_s` and returns the decisions due by then, in order.
  std::vector<SchedulerDecision> poll(double now_s);
  // When poll() next has something to do: a batch, a start, or a report's lag ending.
  double next_poll_s() const;

  // Counts, delays and drops, for the run's results.
  nlohmann::json stats() const;
  uint64_t ordered() const { return next_seq_; }

 private:
  void run_batch(double now_s);

  SchedulerOptions o_;
  std::vector<LinkPath> paths_;
  LinkReservations network_;
  std::deque<std::pair<double, std::map<size_t, double>>> reports_;  // (observed at, rates)
  std::vector<PendingUpdate> waiting_;  // announced since the last batch
  std::optional<double> epoch_s_;       // the first announcement: batches fall every interval after
  double next_batch_s_ = 0;
  bool batch_timer_ = false;  // an update waits for the batch at next_batch_s_
  std::multimap<double, SchedulerDecision> starts_;  // start time -> send
  std::vector<SchedulerDecision> drops_;             // told at the next poll
  uint64_t next_seq_ = 0, announced_ = 0, batches_ = 0;
  std::map<std::string, uint64_t> dropped_;  // why -> count
  std::map<uint64_t, uint64_t> delays_;      // applied version - v(g) -> count
  std::vector<uint64_t> per_worker_ordered_, per_worker_dropped_;
};

// The directed links (from, to) of `directions` as a path from `from` to `to` over the
// fewest hops (the lab routes by hops; a tie goes to the lower-numbered link first).
// Throws std::invalid_argument when `to` is unreachable.
LinkPath hop_path(const std::vector<std::pair<int, int>>& directions, int from, int to);

// Where MLfabric's paper is silent and what was chosen, for `testbed plan` and the results.
nlohmann::json mlfabric_choices();

}  // namespace testbed
