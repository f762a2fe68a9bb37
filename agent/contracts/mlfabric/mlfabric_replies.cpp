#include "agent/contracts/mlfabric/mlfabric_replies.h"

#include "agent/contracts/mlfabric/mlfabric_events.h"
#include "agent/contracts/mlfabric/mlfabric_report.h"
#include "agent/contracts/node_replies.h"

namespace testbed {

void check_mlfabric_reply(const nlohmann::json& reply, size_t nodes, uint64_t max_clock) {
  check_mlfabric_event(reply, nodes, max_clock);
  // None in another system's report: nothing to read there.
  if (reply.value("event", "") == kStatsEvent) mlfabric_report_from(reply);
}

}  // namespace testbed
