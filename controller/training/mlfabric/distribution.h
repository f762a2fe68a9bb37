// MLfabric's model distribution (Sec. 10.3), pure: the server answers a batch of pulls with
// one model version, and instead of sending it to every worker over its own downlink it
// sends it to k distributors (co-hosted on workers' nodes, as the aggregators are), which
// pass it on to their groups. "A variant of Alg. 3 with t_en() the times to transfer the
// model from server to distributor and distributor to worker": the server sends to the
// last distributor first and proceeds backwards, then to the workers of the first group
// (the direct one) itself; a distributor's group takes the next worker while the worker
// gets the model no later than the server finishes its own sends (t_max), so a detour
// never keeps the batch waiting, and the last distributor takes the rest. Every number of
// distributors m (0..k) and of direct workers n is tried; the plan whose last worker has
// the model first wins.
//
// Choices where the paper is silent (docs/mlfabric.md, mlfabric_choices()):
//   - the direct workers are those the server reaches soonest, the others are grouped in
//     that order too (shortest transfer first, as Alg. 1 orders updates);
//   - a distributor's own worker is in its group and gets the model as it arrives;
//   - a tie goes to fewer distributors, then to more workers served directly;
//   - the plan starts when the server is planned to have the clock's last update, on the
//     network the updates' transfers left, and its transfers are reserved there too, so
//     the next updates' transfers are placed around them (one scheduler, one network).
#pragma once

#include <vector>

#include "controller/training/mlfabric/link_reservations.h"

namespace testbed {

// Where the links run: from the server to worker w, and from worker a's node to worker w's
// (empty when a == w).
struct DistributionPaths {
  std::vector<LinkPath> from_server;
  std::vector<std::vector<LinkPath>> between;
};

struct DistributionGroup {
  int distributor = -1;      // the worker whose node passes the model on; -1: the server
  std::vector<int> workers;  // who gets the model from it (a distributor's own worker first)
};

struct DistributionPlan {
  // In the order the server sends: the distributors' groups (the last one first), then the
  // direct group when it has workers.
  std::vector<DistributionGroup> groups;
  std::vector<double> arrives_s;  // per worker: when it has the model
  // Per worker: when the server starts sending to it (its own answer, or a distributor's
  // copy); -1 for one a distributor serves. The server keeps to these times, so its sends
  // do not overlap (MLfabric's time-sharing) and a distributor's copy is not slowed.
  std::vector<double> server_start_s;
  double start_s = 0;    // when the server has the model to send
  double end_s = 0;      // when the last worker has it
  int server_sends = 0;  // models the server's downlink carries
};

// Plans the distribution of `model_bytes` to every worker from `now_s`, with `distributors`
// (worker indexes, pre-assigned to groups 1..k in this order), and reserves the chosen
// plan's transfers in `network`.
DistributionPlan plan_distribution(const std::vector<int>& distributors,
                                   const DistributionPaths& paths, double model_bytes,
                                   LinkReservations& network, double now_s);

}  // namespace testbed
