// Streaming DiLoCo's options as the controller declares them (its registry entry's table):
// DiLoCo's own (H and both optimizers, the same options as `--strategy diloco` takes) and
// its three with the wire's encoding, with the defaults and ranges of the agents'
// StreamingPolicy, so the two ends cannot disagree on a default.
#pragma once

#include <vector>

#include "controller/training/system_options.h"

namespace testbed {

std::vector<OptionSpec> streaming_diloco_options();

}  // namespace testbed
