// MLfabric's bounded-divergence replication for one batch (Sec. 5.3), pure.
//
// Workers replicate their own updates to one hot-standby replica, in the server's order
// (the same places), so the replica's model is the server's of some updates ago. The
// scheduler keeps that lead within Div_max, counted in updates as the paper's evaluation
// counts it (Sec. 7.3: "maximum allowable divergence (measured in number of updates)").
//
// After a batch's server transfers are placed, the updates not yet replicated (those punted
// by earlier batches, then this batch's) are placed towards the replica with Alg. 3, on the
// network as the server's transfers left it, through aggregators earmarked for the replica.
// T_last is when the server has the batch's last update.
//   - If the replica's lead at T_last is within Div_max, every replica group that arrives
//     by T_last is frozen (sent now) and the rest are punted to the next batch, where they
//     are aggregated with its updates.
//   - If not, the batch's last server transfer is held back to start once the earliest
//     replica group whose arrival brings the lead within Div_max has arrived; the groups up
//     to it are frozen, the rest punted.
// The frozen prefix is then placed again alone and reserved, so punted updates reserve
// nothing. The paper's norm-based estimate of divergence (Eq. 11) is reported beside the
// count (divergence.h); with no momentum at the server it is the sum of the leading
// updates' norms.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "controller/training/mlfabric/aggregation.h"

namespace testbed {

// An update the server has ordered and the replica does not have yet.
struct ReplicaCandidate {
  int worker = 0;
  uint64_t seq = 0;  // its place in the server's order (the replica applies the same)
  double bytes = 0;
  uint64_t clock = 0;  // the worker's name for it
};

struct ReplicationState {
  uint64_t server_ordered = 0;   // places the server has once this batch is in
  uint64_t replica_planned = 0;  // places already frozen for the replica (the first candidate's)
  double server_end_s = 0;       // T_last: when the server has the batch's last update
  uint64_t div_max = 0;          // the bound on the server's lead, in updates
};

struct ReplicationPlan {
  size_t frozen = 0;      // the candidates sent now: a prefix; the rest are punted
  AggregationPlan sends;  // their transfers, as reserved (places relative to the prefix)
  std::optional<double> hold_last_until_s;  // the batch's last server transfer starts then
  uint64_t lead_at_end = 0;                 // the server's lead at its last update, as planned
};

// Places the candidates (in order) from `now_s`; reserves the frozen prefix in `network`.
ReplicationPlan plan_replication(const std::vector<ReplicaCandidate>& candidates,
                                 const ReplicationState& state, const std::vector<int>& aggregators,
                                 const AggregationPaths& to_replica, double model_bytes,
                                 LinkReservations& network, double now_s);

}  // namespace testbed
