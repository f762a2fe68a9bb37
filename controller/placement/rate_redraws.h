// The spread of APSP's gains over seeded redraws of a topology's link rates (`testbed
// placement --redraws N`): the paper does not publish its rates, so its figures are one
// draw among these. Each redraw sets every link, both ways, uniformly over the paper's
// range and places the server again; the report holds every draw and the percentiles of
// APSP's reduction against a random server and the most connected one.
#pragma once

#include <nlohmann/json.hpp>

#include "controller/placement/apsp.h"
#include "controller/placement/placement_graph.h"

namespace testbed::placement {

nlohmann::json rate_redraws(PlacementGraph g, double model_bits, const PlacementOptions& o, int n);

}  // namespace testbed::placement
