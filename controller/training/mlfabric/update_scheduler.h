// MLfabric's scheduler (Sec. 4-5) for one server, as the controller runs it: workers
// announce their ready updates over the control socket, never across the shaped links;
// every batching interval the announced updates are ordered (update_order.h), grouped for
// in-network aggregation (aggregation.h), and each worker is told, at its transfer's start,
// to send (with the update's place in the server's order, to the server or to an
// aggregator) or that its update is dropped; an aggregator is told which places it sums.
// With a replica (replication.h), each worker is also told when to send its copy of an
// update on to the replica, and a send to the server waits, if it must, until the replica
// has applied enough updates that the server's lead stays within Div_max.
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

#include "controller/training/mlfabric/aggregation.h"
#include "controller/training/mlfabric/arrival_log.h"
#include "controller/training/mlfabric/distribution.h"
#include "controller/training/mlfabric/link_reservations.h"
#include "controller/training/mlfabric/replication.h"
#include "controller/training/mlfabric/update_order.h"

namespace testbed {

struct SchedulerOptions {
  double batch_interval_s = 0.1;    // the paper's 100 ms batching interval (Sec. 7)
  double report_lag_s = 0.2;        // t_lag, the paper's default (Sec. 7)
  uint64_t delay_bound = 30;        // tau_max, in model versions
  size_t aggregators = 0;           // k: aggregators per batch (0: every update goes direct)
  double model_bytes = 0;           // caps an aggregate's size (a dense sum is one update's)
  uint64_t seed = 1;                // the aggregators' random pre-assignment (Sec. 5.2)
  std::optional<uint64_t> div_max;  // with a replica: the server's greatest lead, in updates
  // MLfabric-S: each batch is a list (list_updates), nothing dropped; the delay bound is unused.
  bool synchronous = false;
  // The monitor's reading of a message the server has not reported by its planned end:
  // false, its reservation ended there (the links are free); true, it still occupies its
  // path, reserved one batching interval at a time at the path's rate, until it arrives
  // (what a monitor of available bandwidth, Sec. 4, would see).
  bool hold_overdue = false;
  // The first place this scheduler gives: 0, or after a failover (MLfabric's replica made
  // the server) the place after every one the dead server's scheduler gave.
  uint64_t first_seq = 0;
};

// What a worker is told:
//   kSend       send now as the server's update number `seq`, to the server (to = -1) or
//               to the aggregator on worker `to`'s node;
//   kDrop       drop it;
//   kAggregate  (to the aggregator's worker) sum the places seq .. seq + count - 1 and
//               send the sum to the server (or, `replica`, to the replica) as one update;
//   kReplicate  send the copy of place `seq` (the worker's update `clock`) now to the
//               replica (to = -1) or to the replica's aggregator on worker `to`'s node.
struct SchedulerDecision {
  enum class Word { kSend, kDrop, kAggregate, kReplicate };
  int worker = 0;
  Word word = Word::kDrop;
  uint64_t clock = 0;  // kSend, kDrop: which of the worker's held updates
  uint64_t seq = 0;
  int to = -1;
  size_t count = 0;
  bool replica = false;
  uint64_t gate = 0;  // kSend: the replica places that must be applied before it goes
};

class UpdateScheduler {
 public:
  // paths.to_server[w]: worker w's path to the server, as link indexes of the monitor's
  // rates; paths.between[w][a]: to the aggregator on worker a's node (needed with aggregators).
  // With options.div_max, `to_replica` gives the paths to the replica the same way.
  UpdateScheduler(SchedulerOptions options, AggregationPaths paths,
                  AggregationPaths to_replica = {});

  // The monitor observed these rates (bits/s per link) at `now_s`; a change reaches the
  // ordering t_lag later.
  void observe_rates(std::map<size_t, double> bits_per_s, double now_s);
  // `clock`: the worker's name for the update, echoed in the word about it.
  // `norm`: the update's L2 norm (Table 1's push carries it for the divergence estimate).
  void announce(int worker, uint64_t version, double bytes, double now_s, uint64_t clock = 0,
                double norm = 0);
  // The replica reports the places it has applied (0 .. applied - 1).
  void replica_applied(uint64_t applied, double now_s);
  // The workers are done: every punted update goes to the replica now, and so does what
  // a batch still due would punt.
  void flush_replica(double now_s);
  // Runs the batches due by `now_s` and returns the decisions due by then, in order.
  std::vector<SchedulerDecision> poll(double now_s);
  // When poll() next has something to do: a batch, a start, or a report's lag ending.
  double next_poll_s() const;

  // The server has the message of place `seq` (an update, or a sum starting there).
  void arrived(uint64_t seq, double now_s) { arrivals_.arrived(seq, now_s); }
  // Counts, delays and drops, for the run's results.
  nlohmann::json stats() const;
  uint64_t ordered() const { return next_seq_; }
  const SchedulerOptions& options() const { return o_; }
  // MLfabric-S: the model's distribution (distribution.h), from when the server is planned
  // to have every update ordered so far (or now, if later), on the network the updates'
  // transfers left; its transfers are reserved, so later batches are placed around them.
  DistributionPlan plan_distribution_after_updates(const std::vector<int>& distributors,
                                                   const DistributionPaths& paths,
                                                   double model_bytes, double now_s);
  // MLfabric-A: a batch of pulls answered with one version from now, around the updates'
  // transfers reserved so far; its transfers are reserved as the updates' are.
  DistributionPlan plan_distribution_now(const std::vector<int>& distributors,
                                         const DistributionPaths& paths, double model_bytes,
                                         double now_s) {
    return plan_distribution(distributors, paths, model_bytes, network_, now_s);
  }
  bool waits_for_replica() const { return !gated_.empty(); }
  uint64_t replica_reported() const { return replica_applied_; }  // places, as last reported
  // Places ordered whose send is not yet told (due later, or held for the replica).
  uint64_t unsent_places() const;
  const std::vector<double>& norms() const { return norms_; }  // per place, as announced

 private:
  void run_batch(double now_s);
  std::vector<int> pick_aggregators();
  // Places the punted updates and these (seq, worker, bytes) towards the replica; returns
  // when the server's last transfer of the batch may start.
  std::optional<double> replicate(std::vector<ReplicaCandidate> fresh, uint64_t server_ordered,
                                  double server_end_s, uint64_t div_max, double now_s);
  nlohmann::json replication_stats() const;

  SchedulerOptions o_;
  AggregationPaths paths_, to_replica_;
  LinkReservations network_;
  std::deque<std::pair<double, std::map<size_t, double>>> reports_;  // (observed at, rates)
  std::vector<PendingUpdate> waiting_;  // announced since the last batch
  std::optional<double> epoch_s_;       // the first announcement: batches fall every interval after
  double next_batch_s_ = 0;
  bool batch_timer_ = false;  // an update waits for the batch at next_batch_s_
  std::multimap<double, SchedulerDecision> starts_;  // start time -> send
  std::vector<SchedulerDecision> told_now_;          // drops and aggregations: the next poll
  uint64_t next_seq_ = 0, announced_ = 0, batches_ = 0;
  double server_has_all_s_ = 0;  // when the server is planned to have every ordered update
  double batch_seconds_ = 0, slowest_batch_s_ = 0;  // the scheduler's own compute time
  uint64_t groups_ = 0, aggregated_ = 0;            // sums sent, updates in them
  double bytes_to_server_ = 0, bytes_ordered_ = 0;  // as planned: with the sums, and without
  std::mt19937_64 rng_;                             // the pre-assignment's draws
  std::map<std::string, uint64_t> dropped_;         // why -> count
  std::map<uint64_t, uint64_t> delays_;             // applied version - v(g) -> count
  // Replication: updates punted to a later batch, places frozen so far, what the replica
  // reported, and the sends waiting for it (gate > replica_applied_), with when they fell due.
  std::vector<ReplicaCandidate> punted_;
  std::map<std::pair<int, uint64_t>, double> announced_norms_;  // (worker, clock) -> norm
  std::vector<double> norms_;                                   // per place
  uint64_t replica_planned_ = 0, replica_applied_ = 0;
  bool flushing_ = false;  // the workers are done: nothing is punted any more
  std::deque<std::pair<double, SchedulerDecision>> gated_;
  uint64_t replica_groups_ = 0, replica_aggregated_ = 0, held_last_ = 0, gate_waits_ = 0;
  uint64_t max_planned_lead_ = 0;
  double replica_bytes_ = 0, gate_wait_s_ = 0;
  std::vector<uint64_t> per_worker_ordered_, per_worker_dropped_;
  ArrivalLog arrivals_;         // planned against reported arrivals at the server
  uint64_t overdue_holds_ = 0;  // hold_overdue: intervals reserved for overdue messages
};

// The directed links (from, to) of `directions` as a path from `from` to `to` over the
// fewest hops (the lab routes by hops; a tie goes to the lower-numbered link first).
// Throws std::invalid_argument when `to` is unreachable.
LinkPath hop_path(const std::vector<std::pair<int, int>>& directions, int from, int to);

// Where MLfabric's paper is silent and what was chosen, for `testbed plan` and the results.
nlohmann::json mlfabric_choices();

}  // namespace testbed
