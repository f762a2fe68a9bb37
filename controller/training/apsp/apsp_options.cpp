#include "controller/training/apsp/apsp_options.h"

namespace testbed {

std::vector<OptionSpec> apsp_options() {
  using T = OptionSpec::Type;
  const ApspKnobs d;
  return {
      {.name = "apsp-mode",
       .type = T::kChoice,
       .fallback = d.mode,
       .choices = {"model", "native"},
       .help = "pulls over the routes: store-and-forward paced (model) or the kernel's (native)",
       .field = "mode"},
      {.name = "capacity",
       .type = T::kChoice,
       .fallback = d.capacity,
       .choices = {"undirected", "directed"},
       .help = "a link's capacity in the placement's LP: shared by both directions, or each's"},
      {.name = "draws",
       .type = T::kInt,
       .fallback = std::to_string(d.draws),
       .min = 1,
       .max = 1000,
       .help = "randomized roundings of the LP's solution; the best is kept",
       .arg = "R"},
  };
}

ApspKnobs apsp_knobs(const nlohmann::json& policy) {
  ApspKnobs k;
  k.mode = option_or(policy, "mode", k.mode);
  k.capacity = option_or(policy, "capacity", k.capacity);
  k.draws = option_or(policy, "draws", k.draws);
  return k;
}

}  // namespace testbed
