// What `testbed status` shows of one lab: its plan's nodes, links and routes, each direction
// with its current values (what the timeline or `link set` changed since `up`) and what the
// kernel reports of it with counters, where to watch the lab, and the emulation health of
// its newest run. The verb prints it as tables or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

#include "controller/lab/lab_state.h"
#include "netns/kernel.h"

namespace testbed {

// `kernel` null (not root): the kernel's view is left out and nodes' presence unknown.
// Routes come as their rule and count, or listed (made again from the plan's rule): all
// of them for kAll, those of a lab with few enough to read for kFew (plan_table.h; people's
// tables), none for kNone (`--json` without `--routes`, whose shape must not hang on size).
enum class RouteListing { kNone, kFew, kAll };
nlohmann::json lab_status(const LabStore& store, const std::string& lab, Kernel* kernel,
                          RouteListing routes = RouteListing::kNone);

// The tables of one lab's status; `live`: the kernel's view was asked for.
void print_lab_status(std::ostream& out, const LabState& s, const nlohmann::json& status,
                      bool live);

}  // namespace testbed
