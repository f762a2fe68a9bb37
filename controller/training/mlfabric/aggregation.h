// MLfabric's in-network aggregation for one ordered batch (Sec. 5.2, Alg. 3), pure.
//
// The ordered updates are cut into up to k+1 groups, kept in order: the first group goes
// straight to the server; each later group goes to an aggregator (co-hosted on a worker
// node, as in the paper), which sums it and sends the sum to the server as one transfer.
// A group may take the next update only while that update reaches its aggregator no later
// than the server finishes receiving every earlier group (t_max), so the server's link is
// never left idle waiting on an aggregation. Every split point n (the first n updates sent
// directly, n = 0..|U|) is tried; the one whose last transfer to the server ends first wins.
// Each transfer is reserved as it is placed (NetUp), so transfers time-share links.
//
// Choices where the paper is silent (docs/mlfabric.md, mlfabric_choices()):
//   - t_max starts when the link into the server is next free, not at 0: a batch that finds
//     it busy with earlier batches' transfers may gather a group meanwhile;
//   - a group is never empty: an update that cannot meet the constraint at an empty group
//     joins it anyway (Alg. 3 as printed would close an empty group, or loop);
//   - when the k aggregators are used up, the last group takes the remaining updates;
//   - the last group's sum is sent too: the time compared is its end (the paper's "time until
//     the last (k+1)st group is transferred");
//   - a sum starts once all its updates have reached the aggregator; its size is the sum of
//     theirs, capped at the model's size (a dense sum is one update's size);
//   - a tie between split points goes to the larger n (fewer detours through aggregators);
//     n = |U| is Alg. 2's schedule unchanged.
#pragma once

#include <cstdint>
#include <vector>

#include "controller/training/mlfabric/link_reservations.h"

namespace testbed {

// An update to place: who sends it and how big it is. Its position in the vector is its
// place in the order.
struct AggregationInput {
  int worker = 0;
  double bytes = 0;
};

// Where the links run: worker w to the server, and worker w to the aggregator hosted on
// worker a's node (empty when a == w: the update stays on its node).
struct AggregationPaths {
  std::vector<LinkPath> to_server;
  std::vector<std::vector<LinkPath>> between;
};

struct AggregationGroup {
  int aggregator = -1;  // the worker whose node sums the group; -1: the direct group
  size_t first = 0;     // the group's updates are first .. first + count - 1 of the order
  size_t count = 0;
  TransferTimes to_server;  // the sum's transfer (the direct group: its last update's)
  double bytes = 0;         // what reaches the server: the sum (capped), or every direct update
};

struct AggregationPlan {
  std::vector<AggregationGroup> groups;  // in order; the direct group first when non-empty
  std::vector<TransferTimes> transfers;  // per update: its transfer to the server or aggregator
  std::vector<int> to;                   // per update: its aggregator's worker, -1 the server
  double end_s = 0;                      // when the server has every group
  size_t direct = 0;                     // n: the updates sent straight to the server
};

// Places `ordered` from `now_s` with `aggregators` (worker indexes, pre-assigned to groups
// 1..k in this order), reserving the chosen transfers in `network`. Model bytes caps a sum.
AggregationPlan plan_aggregation(const std::vector<AggregationInput>& ordered,
                                 const std::vector<int>& aggregators, const AggregationPaths& paths,
                                 double model_bytes, LinkReservations& network, double now_s);

}  // namespace testbed
