#include "controller/training/mlfabric/update_order.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>

namespace testbed {
namespace {

// dl(g) as a signed number: a stale update's deadline lies before the batch.
int64_t deadline(const PendingUpdate& g, uint64_t v_init, uint64_t tau_max) {
  return static_cast<int64_t>(g.version + tau_max) - static_cast<int64_t>(v_init);
}

// ShrtDline: among `candidates`, one whose deadline is `position` (the shortest of them),
// else the one that completes first. Returns its index. Without a position (MLfabric-S's
// list) no update is due: the one that completes first.
size_t pick(const std::vector<PendingUpdate>& candidates, std::optional<int64_t> position,
            uint64_t v_init, uint64_t tau_max, const LinkReservations& network, double now_s) {
  const auto key = [&](const PendingUpdate& g) {
    const bool due = position && deadline(g, v_init, tau_max) == *position;
    return std::make_tuple(!due, network.transfer(g.path, g.bytes, now_s).end_s, g.announced,
                           g.worker);
  };
  // Each candidate's transfer is walked once.
  size_t best = 0;
  auto best_key = key(candidates[0]);
  for (size_t i = 1; i < candidates.size(); ++i) {
    auto k = key(candidates[i]);
    if (k < best_key) {
      best = i;
      best_key = k;
    }
  }
  return best;
}

}  // namespace

BatchOrder order_updates(std::vector<PendingUpdate> batch, uint64_t v_init, uint64_t tau_max,
                         LinkReservations& network, double now_s) {
  BatchOrder out;
  int64_t position = 1;
  while (!batch.empty()) {
    std::erase_if(batch, [&](const PendingUpdate& g) {
      if (deadline(g, v_init, tau_max) >= position) return false;
      out.dropped.push_back({g, "deadline"});
      return true;
    });
    if (batch.empty()) break;
    const size_t chosen = pick(batch, position, v_init, tau_max, network, now_s);
    const PendingUpdate g = batch[chosen];
    batch.erase(batch.begin() + static_cast<std::ptrdiff_t>(chosen));
    const TransferTimes alone = network.transfer(g.path, g.bytes, now_s);
    if (alone.end_s == std::numeric_limits<double>::infinity()) {
      out.dropped.push_back({g, "no bandwidth"});  // a link at rate 0: it would never arrive
      continue;
    }
    if (!batch.empty()) {
      // Look-ahead: the next update, as it would go once this one is reserved.
      LinkReservations after = network;
      after.reserve(g.path, g.bytes, now_s);
      const PendingUpdate& next = batch[pick(batch, position + 1, v_init, tau_max, after, now_s)];
      if (alone.end_s > after.transfer(next.path, next.bytes, now_s).end_s) {
        out.dropped.push_back({g, "look-ahead"});
        continue;
      }
    }
    const TransferTimes t = network.reserve(g.path, g.bytes, now_s);
    out.ordered.push_back({g, v_init + static_cast<uint64_t>(position) - 1, t});
    ++position;
  }
  return out;
}

BatchOrder list_updates(std::vector<PendingUpdate> batch, uint64_t v_init,
                        LinkReservations& network, double now_s) {
  BatchOrder out;
  while (!batch.empty()) {
    const size_t chosen = pick(batch, std::nullopt, v_init, 0, network, now_s);
    const PendingUpdate g = batch[chosen];
    batch.erase(batch.begin() + static_cast<std::ptrdiff_t>(chosen));
    TransferTimes t = network.transfer(g.path, g.bytes, now_s);
    // A link at rate 0 reserves nothing: the update goes now and arrives when the link
    // returns, since the clock cannot end without it.
    t = t.end_s == std::numeric_limits<double>::infinity()
            ? TransferTimes{now_s, t.end_s}
            : network.reserve(g.path, g.bytes, now_s);
    out.ordered.push_back({g, v_init + out.ordered.size(), t});
  }
  return out;
}

}  // namespace testbed
