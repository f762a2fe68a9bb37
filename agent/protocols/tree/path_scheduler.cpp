#include "agent/protocols/tree/path_scheduler.h"

namespace testbed {

std::vector<int> PathScheduler::choose(const SyncPolicy& policy, int to) {
  std::vector<int> primary{self_, to};
  if (!policy.aux) return primary;  // nothing to choose from, and nothing acknowledges
  const auto pick = [&](std::vector<int> route) {
    ++in_flight_[route];
    return route;
  };
  if (in_flight(primary) < policy.aux->primary_busy_bound) return pick(std::move(primary));
  const auto it = policy.aux->routes.find({self_, to});
  if (it != policy.aux->routes.end()) {
    for (const auto& route : it->second) {  // fastest first
      if (in_flight(route) < policy.aux->queue_length) return pick(route);
    }
  }
  return pick(std::move(primary));
}

void PathScheduler::acknowledged(const std::vector<int>& route) {
  const auto it = in_flight_.find(route);
  if (it == in_flight_.end()) return;  // sent before this node counted (no aux then)
  if (--it->second <= 0) in_flight_.erase(it);
}

int PathScheduler::in_flight(const std::vector<int>& route) const {
  const auto it = in_flight_.find(route);
  return it == in_flight_.end() ? 0 : it->second;
}

}  // namespace testbed
