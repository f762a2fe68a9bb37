// NetStorm's communication scheduler on the sending side (Sec. VI-A), as pure logic: each
// new chunk for a tree edge goes on the primary path unless that path is busy, then on
// the fastest auxiliary route with room, and back on the primary path when every route is
// full. "In flight" counts chunks sent on a route that their receiver has not yet
// acknowledged; routes are keyed by their node sequence, so a late acknowledgement after a
// policy change still settles the route it was sent on.
#pragma once

#include <map>
#include <vector>

#include "agent/protocols/tree/sync_policy.h"

namespace testbed {

class PathScheduler {
 public:
  explicit PathScheduler(int self) : self_(self) {}

  // The route, as nodes from this one to `to`, for a new chunk under `policy`; counted as
  // in flight until acknowledged(). {self, to} is the primary path.
  std::vector<int> choose(const SyncPolicy& policy, int to);
  // The receiver of a chunk sent on `route` has it.
  void acknowledged(const std::vector<int>& route);
  int in_flight(const std::vector<int>& route) const;

 private:
  int self_;
  std::map<std::vector<int>, int> in_flight_;
};

}  // namespace testbed
