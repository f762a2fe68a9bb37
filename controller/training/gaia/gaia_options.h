// Gaia's options (its registry entry's table): ASP's knobs between data centers (Sec. 3),
// the local model inside one (Appendix B), the data-center groups (Sec. 4.5) and what a data
// center does once a mirror is cut off; and their typed values as the run reads them.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "controller/training/gaia/gaia_plan.h"
#include "controller/training/system_options.h"

namespace testbed {

std::vector<OptionSpec> gaia_options();

// The knobs from the table's typed values (the run's TrainOptions::policy); t's unit is the
// core's (--gaia-t, which the baselines read too).
GaiaKnobs gaia_knobs(const nlohmann::json& policy, bool t_in_passes);

}  // namespace testbed
