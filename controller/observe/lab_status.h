// What `testbed status` shows of one lab: its plan's nodes, links and routes, each direction
// with its current values (what the timeline or `link set` changed since `up`) and what the
// kernel reports of it with counters, where to watch the lab, and the emulation health of
// its newest run. The verb prints it as tables or JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

#include "kernel.h"
#include "lab_state.h"

namespace testbed {

// `kernel` null (not root): the kernel's view is left out and nodes' presence unknown.
// Routes are listed (made again from the plan's rule) when `with_routes`, or when they are
// few enough to read (plan_table.h); otherwise their rule and count.
nlohmann::json lab_status(const LabStore& store, const std::string& lab, Kernel* kernel,
                          bool with_routes = false);

// The tables of one lab's status; `live`: the kernel's view was asked for.
void print_lab_status(std::ostream& out, const LabState& s, const nlohmann::json& status,
                      bool live);

}  // namespace testbed
