// DiLoCo's options as the controller declares them (its registry entry's table): names,
// help and the defaults and ranges of the agents' DilocoPolicy, so the two ends cannot
// disagree on a default.
#pragma once

#include <vector>

#include "controller/training/system_options.h"

namespace testbed {

std::vector<OptionSpec> diloco_options();

}  // namespace testbed
