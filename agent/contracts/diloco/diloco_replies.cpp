#include "agent/contracts/diloco/diloco_replies.h"

#include "agent/contracts/diloco/diloco_report.h"
#include "agent/contracts/node_replies.h"

namespace testbed {

void check_diloco_reply(const nlohmann::json& reply, size_t nodes, uint64_t max_clock) {
  (void)max_clock;  // its replies carry no clock
  (void)nodes;      // nor node indices
  if (reply.value("event", "") == kStatsEvent) diloco_section_from(reply);
}

}  // namespace testbed
