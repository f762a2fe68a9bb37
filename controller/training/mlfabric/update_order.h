// MLfabric's update ordering for one batch (Sec. 5.1, Alg. 1-2), pure.
//
// Every update of the batch is either ordered, with the times of its transfer to the
// server, or dropped at its worker:
//   - shortest transfer first (Alg. 1): the next update is the one whose transfer, given
//     what earlier ones reserved, completes first;
//   - deadlines (Eq. 9): dl(g) = v(g) + tau_max - v_init. An update whose deadline is the
//     position being filled is taken there instead, so its delay (the versions applied
//     between the model it was computed from and itself) stays within the bound;
//   - look-ahead (Alg. 2, lines 10-11): an update taken for its deadline is dropped when
//     the update after it would complete before it, so the server's link never idles
//     behind one slow transfer.
// Choices where the paper is silent (docs/mlfabric.md, mlfabric_choices()):
//   - positions count ordered updates, not the loop's iterations: a dropped update does
//     not advance the model, so deadlines compare with the version each update will apply
//     to (Alg. 2's loop index would count the drop as a version);
//   - an update whose deadline has already passed (dl(g) < the position, e.g. two
//     updates due at the same position, or a straggler's model too old for this batch)
//     is dropped: ordering it would break the bound;
//   - ties go to the update announced first, then to the lower worker.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/training/mlfabric/link_reservations.h"

namespace testbed {

struct PendingUpdate {
  int worker = 0;
  uint64_t version = 0;  // v(g): the model version it was computed from
  double bytes = 0;
  LinkPath path;           // worker to server
  uint64_t announced = 0;  // arrival order at the scheduler
  uint64_t clock = 0;      // the worker's name for it (the clock it was computed at)
};

struct OrderedUpdate {
  PendingUpdate update;
  uint64_t applies_to = 0;  // the model version it applies to: v_init + position - 1
  TransferTimes times;
};

struct DroppedUpdate {
  PendingUpdate update;
  std::string why;  // "deadline" (already past it), "look-ahead", or "no bandwidth"
};

struct BatchOrder {
  std::vector<OrderedUpdate> ordered;
  std::vector<DroppedUpdate> dropped;
};

// Orders `batch` from `now_s`, reserving the ordered transfers in `network` (so the next
// batch sees them). v_init: the model version once every earlier batch's updates apply.
BatchOrder order_updates(std::vector<PendingUpdate> batch, uint64_t v_init, uint64_t tau_max,
                         LinkReservations& network, double now_s);

// MLfabric-S (Sec. 6): "update ordering does not apply to synchronous SGD", so the batch is
// a list for Alg. 3 with every update in it and none dropped: the server waits for every
// worker's update of the clock whatever its delay. The list is shortest transfer first
// (Alg. 1 without deadlines): the paper gives no order, and this one starts the updates
// that can arrive soonest first.
BatchOrder list_updates(std::vector<PendingUpdate> batch, uint64_t v_init,
                        LinkReservations& network, double now_s);

}  // namespace testbed
