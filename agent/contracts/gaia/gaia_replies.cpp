#include "agent/contracts/gaia/gaia_replies.h"

#include "agent/contracts/gaia/gaia_events.h"
#include "agent/contracts/gaia/gaia_report.h"
#include "agent/contracts/node_replies.h"

namespace testbed {

void check_gaia_reply(const nlohmann::json& reply, size_t nodes, uint64_t max_clock) {
  (void)max_clock;  // its replies carry no clock
  check_gaia_event(reply, nodes);
  if (reply.value("event", "") == kStatsEvent) gaia_section_from(reply, nodes);
}

}  // namespace testbed
