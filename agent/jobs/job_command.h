// The job part of a training command, as the controller writes it
// ({"name", "seed", "scale", "parameters"?, "t"?}), read into a JobConfig. Every protocol
// reads it the same way; only the worker count differs (a protocol's workers, times the
// workers a node stands for).
#pragma once

#include <nlohmann/json.hpp>

#include "job.h"

namespace testbed {

// Throws nlohmann's out_of_range naming the missing field when "name", "seed" or "scale"
// is absent: the command is the controller's, so a gap is a defect, not a user's input.
JobConfig job_config(const nlohmann::json& job, int workers);

}  // namespace testbed
