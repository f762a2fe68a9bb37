// `testbed plan FILE --hosts N|FILE [--host NAME]`: a placement chosen from the command
// line, and what each host would do, for people and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "controller/hosts/host_placement.h"
#include "controller/hosts/plan_slices.h"

namespace testbed {

// `spec` is a number of hosts to compute a placement for, or a placement file's path.
// Throws ValidationError (file) or std::invalid_argument (count).
HostPlacement resolve_host_placement(const std::string& spec, const Plan& plan);

void print_host_placement(const Plan& plan, const HostPlacement& placement,
                          const std::vector<PlanSlice>& slices, std::ostream& out);
nlohmann::json slices_to_json(const Plan& plan, const HostPlacement& placement,
                              const std::vector<PlanSlice>& slices);

}  // namespace testbed
