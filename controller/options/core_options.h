// The options every run reads, whatever its system: one table (system_options.h's
// OptionSpec), from which the profile's `workload:` keys, the checks of their values, the
// usage text and their typed values all come. A system's own options are in its registry
// entry's table, not here.
#pragma once

#include <string>
#include <vector>

#include "controller/training/system_options.h"

namespace testbed {

// In the order `train`'s usage lists them. Defaults that depend on the strategy's kind (a
// model, a scale) are the resolver's (run_options.cpp); the table's fallback is then "".
const std::vector<OptionSpec>& core_options();
// nullptr for a name the table does not have.
const OptionSpec* find_core_option(const std::string& name);

}  // namespace testbed
