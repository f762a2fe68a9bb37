// The placement a profile's workload asks for (a placement strategy and a named model), as
// `testbed placement` and `testbed plan` report it; null when the workload is another
// strategy's, or a job whose size is known only once it is built.
#pragma once

#include <nlohmann/json.hpp>

#include "controller/topology/topology.h"

namespace testbed {

nlohmann::json workload_placement(const Topology& t);

}  // namespace testbed
