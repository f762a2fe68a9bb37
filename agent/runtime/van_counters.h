// The van's counters as the contract every system's final report carries
// (agent/contracts/node_replies.h): the van counts, the runtime turns its counts into
// the message, so the transport knows nothing of the controller's messages.
#pragma once

#include "agent/contracts/node_replies.h"
#include "agent/transport/van.h"

namespace testbed {

VanCounters van_counters(const Van& van);

// A report of `event` that starts with the van's counters (a system's "stats"); the
// system adds its own fields beside them.
nlohmann::json report_with_counters(const char* event, const Van& van);

}  // namespace testbed
