#include "controller/placement/capacity_rows.h"

#include <algorithm>
#include <string>

namespace testbed::placement {

// Undirected (the paper): one row per link, of the slower direction's rate; a flow loads
// it once, whichever way it crosses. Directed: four rows per link, the push phase's and the
// pull phase's for each direction, since BSP runs the phases one after the other:
//   row 4i+0  push a->b    row 4i+1  push b->a    row 4i+2  pull a->b    row 4i+3  pull b->a
CapacityRows::CapacityRows(const PlacementGraph& g, CapacityModel model) : model_(model) {
  for (const auto& l : g.links) {
    if (model == CapacityModel::kUndirected) {
      capacity_bps_.push_back(std::min(l.a2b_bps, l.b2a_bps));
    } else {
      capacity_bps_.insert(capacity_bps_.end(), {l.a2b_bps, l.b2a_bps, l.a2b_bps, l.b2a_bps});
    }
  }
}

std::vector<size_t> CapacityRows::rows_of(const Path& p) const {
  std::vector<size_t> rows;
  for (size_t i = 0; i < p.links.size(); ++i) {
    const auto link = static_cast<size_t>(p.links[i]);
    if (model_ == CapacityModel::kUndirected) {
      rows.push_back(link);
    } else if (p.forward[i]) {  // pushed a->b, pulled b->a
      rows.push_back(4 * link + 0);
      rows.push_back(4 * link + 3);
    } else {
      rows.push_back(4 * link + 1);
      rows.push_back(4 * link + 2);
    }
  }
  return rows;
}

std::string CapacityRows::describe(size_t row, const PlacementGraph& g) const {
  const size_t link = model_ == CapacityModel::kUndirected ? row : row / 4;
  const auto& l = g.links[link];
  const std::string a = g.names[static_cast<size_t>(l.a)], b = g.names[static_cast<size_t>(l.b)];
  if (model_ == CapacityModel::kUndirected) return a + "-" + b;
  static const char* const kPhase[] = {"push ", "push ", "pull ", "pull "};
  const bool a_to_b = row % 2 == 0;
  return kPhase[row % 4] + (a_to_b ? a + ">" + b : b + ">" + a);
}

}  // namespace testbed::placement
