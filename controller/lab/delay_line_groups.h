// How a lab's delay lines (plan.h: one per node that receives delayed links) are spread
// over processes: one process serves many nodes (netns/delay_line_main.cpp). Pure.
#pragma once

#include <vector>

#include "controller/lab/plan.h"

namespace testbed {

// The delay-line processes of a lab: at most this many, each serving a run of nodes (one
// node each up to 16 nodes, as before). Sixteen is eight times the cores of the machines we
// target, so releases still spread over every core; beyond it a process per node only adds
// start-up and memory (a 1000-node lab kept 1000 of them).
constexpr size_t kMaxDelayLineProcesses = 16;

// The delay lines of `lines` cut into at most `processes` runs of consecutive nodes, as
// even as they divide. Pure.
std::vector<std::vector<const PlannedDelayLine*>> delay_line_groups(
    const std::vector<PlannedDelayLine>& lines, size_t processes = kMaxDelayLineProcesses);

}  // namespace testbed
