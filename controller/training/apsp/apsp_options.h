// The placement strategies' options (APSP, and the baselines placed by other rules): how
// pulls cross the placement's routes, and how the placement's capacities are read and
// rounded. And their typed values as the run reads them.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "controller/training/system_options.h"

namespace testbed {

struct ApspKnobs {
  std::string mode = "model";          // model (store-and-forward, paced) or native
  std::string capacity = "undirected";  // the LP's reading of a link's capacity
  int draws = 1;                        // roundings of the LP's solution; the best is kept
};

std::vector<OptionSpec> apsp_options();
ApspKnobs apsp_knobs(const nlohmann::json& policy);

}  // namespace testbed
