// How a lab's delay lines (plan.h: one per node that receives delayed links) are spread
// over processes: one process serves many nodes (netns/delay_line_main.cpp). Pure.
#pragma once

#include <vector>

#include "controller/lab/plan.h"
#include "netns/cpu_allowance.h"

namespace testbed {

// The delay-line processes of a lab: one per CPU the lab may use, and at most this many,
// each serving a run of nodes. A process wakes once for every release due in its window
// across all the nodes it serves, and a wake-up is most of a release's cost (a guest's
// context switches and hypervisor calls), so fewer processes wake less: on Internet2's
// nine nodes and two CPUs, two processes instead of nine (bench/delayline-cpu.sh,
// docs/benchmarks.md). One per CPU still lets releases use every CPU; sixteen bounds a
// process's per-turn scan over its queues on a large machine.
constexpr size_t kMaxDelayLineProcesses = 16;

// For a lab allowed `allowance` (netns/cpu_allowance.h): its CPUs or its quota, rounded
// up, at least one and at most kMaxDelayLineProcesses.
size_t delay_line_processes(const CpuAllowance& allowance);

// What a node weighs on its process: its queues and its control socket, one descriptor
// each (a process serving 5000 nodes of a 10,000-leaf star holds tens of thousands, where
// this machine's hard limit is 20,000), and a queue is a packet stream to wake for.
size_t delay_line_weight(const PlannedDelayLine& line);

// The delay lines of `lines` cut into at most `processes` runs of consecutive nodes of
// about equal weight: a star's hub, with a queue per leaf, weighs as much as half its
// leaves. Pure.
std::vector<std::vector<const PlannedDelayLine*>> delay_line_groups(
    const std::vector<PlannedDelayLine>& lines, size_t processes = kMaxDelayLineProcesses);

}  // namespace testbed
