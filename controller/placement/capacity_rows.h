// The capacity constraints of APSP's Problem 4 as rows: each row has a capacity, and a
// flow on a path loads some rows with |p|·D·rate. Shared by the LP and by the closed form
// that rates fixed paths, so both count a link the same way.
#pragma once

#include <vector>

#include "controller/placement/placement_graph.h"

namespace testbed::placement {

class CapacityRows {
 public:
  CapacityRows(const PlacementGraph& g, CapacityModel model);
  size_t size() const { return capacity_bps_.size(); }
  double capacity_bps(size_t row) const { return capacity_bps_[row]; }
  // The rows a flow on `p` (worker to server; the pull runs it backwards) loads.
  std::vector<size_t> rows_of(const Path& p) const;
  std::string describe(size_t row, const PlacementGraph& g) const;  // "chicago-atlanta"

 private:
  CapacityModel model_;
  std::vector<double> capacity_bps_;
};

}  // namespace testbed::placement
