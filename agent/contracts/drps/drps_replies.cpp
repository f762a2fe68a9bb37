#include "agent/contracts/drps/drps_replies.h"

#include "agent/contracts/drps/drps_report.h"
#include "agent/contracts/node_replies.h"

namespace testbed {

void check_drps_reply(const nlohmann::json& reply, size_t nodes, uint64_t max_clock) {
  (void)max_clock;  // its replies carry no clock
  if (reply.value("event", "") == kStatsEvent) drps_report_from(reply, nodes);
}

}  // namespace testbed
