// MLfabric's scheduler (Sec. 4-5) for one server, as the controller runs it: workers
// announce their ready updates over the control socket, never across the shaped links;
// every batching interval the announced updates are ordered (update_order.h), grouped for
// in-network aggregation (aggregation.h), and each worker is told, at its transfer's start,
// to send (with the update's place in the server's order, to the server or to an
// aggregator) or that its update is dropped; an aggregator is told which places it sums.
// The network monitor's rates reach the scheduler t_lag after they were observed (the
// paper's reporting lag).
//
// Pure: time is passed in, so tests drive it with any clock.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "aggregation.h"
#include "link_reservations.h"
#include "update_order.h"

namespace testbed {

struct SchedulerOptions {
  double batch_interval_s = 0.1;  // the paper's 100 ms batching interval (Sec. 7)
  double report_lag_s = 0.2;      // t_lag, the paper's default (Sec. 7)
  uint64_t delay_bound = 30;      // tau_max, in model versions
  size_t aggregators = 0;         // k: aggregators per batch (0: every update goes direct)
  double model_bytes = 0;         // caps an aggregate's size (a dense sum is one update's)
  uint64_t seed = 1;              // the aggregators' random pre-assignment (Sec. 5.2)
};

// What a worker is told:
//   kSend       send now as the server's update number `seq`, to the server (to = -1) or
//               to the aggregator on worker `to`'s node;
//   kDrop       drop it;
//   kAggregate  (to the aggregator's worker) sum the places seq .. seq + count - 1 and
//               send the sum to the server as one update.
struct SchedulerDecision {
  enum class Word { kSend, kDrop, kAggregate };
  int worker = 0;
  Word word = Word::kDrop;
  uint64_t clock = 0;  // kSend, kDrop: which of the worker's held updates
  uint64_t seq = 0;
  int to = -1;
  size_t count = 0;
};

class UpdateScheduler {
 public:
  // paths.to_server[w]: worker w's path to the server, as link indexes of the monitor's
  // rates; paths.between[w][a]: to the aggregator on worker a's node (needed with aggregators).
  UpdateScheduler(SchedulerOptions options, AggregationPaths paths);

  // The monitor observed these rates (bits/s per link) at `now_s`; a change reaches the
  // ordering t_lag later.
  void observe_rates(std::map<size_t, double> bits_per_s, double now_s);
  // `clock`: the worker's name for the update, echoed in the word about it.
  void announce(int worker, uint64_t version, double bytes, double now_s, uint64_t clock = 0);
  // Runs the batches due by `now_s` and returns the decisions due by then, in order.
  std::vector<SchedulerDecision> poll(double now_s);
  // When poll() next has something to do: a batch, a start, or a report's lag ending.
  double next_poll_s() const;

  // Counts, delays and drops, for the run's results.
  nlohmann::json stats() const;
  uint64_t ordered() const { return next_seq_; }

 private:
  void run_batch(double now_s);
  std::vector<int> pick_aggregators();

  SchedulerOptions o_;
  AggregationPaths paths_;
  LinkReservations network_;
  std::deque<std::pair<double, std::map<size_t, double>>> reports_;  // (observed at, rates)
  std::vector<PendingUpdate> waiting_;  // announced since the last batch
  std::optional<double> epoch_s_;       // the first announcement: batches fall every interval after
  double next_batch_s_ = 0;
  bool batch_timer_ = false;  // an update waits for the batch at next_batch_s_
  std::multimap<double, SchedulerDecision> starts_;  // start time -> send
  std::vector<SchedulerDecision> told_now_;          // drops and aggregations: the next poll
  uint64_t next_seq_ = 0, announced_ = 0, batches_ = 0;
  uint64_t groups_ = 0, aggregated_ = 0;            // sums sent, updates in them
  double bytes_to_server_ = 0, bytes_ordered_ = 0;  // as planned: with the sums, and without
  std::mt19937_64 rng_;                             // the pre-assignment's draws
  std::map<std::string, uint64_t> dropped_;         // why -> count
  std::map<uint64_t, uint64_t> delays_;             // applied version - v(g) -> count
  std::vector<uint64_t> per_worker_ordered_, per_worker_dropped_;
};

// The directed links (from, to) of `directions` as a path from `from` to `to` over the
// fewest hops (the lab routes by hops; a tie goes to the lower-numbered link first).
// Throws std::invalid_argument when `to` is unreachable.
LinkPath hop_path(const std::vector<std::pair<int, int>>& directions, int from, int to);

// Where MLfabric's paper is silent and what was chosen, for `testbed plan` and the results.
nlohmann::json mlfabric_choices();

}  // namespace testbed
