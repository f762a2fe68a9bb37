// What another host reports of its own links when a run across hosts asks
// (docs/multihost.md#every-hosts-links): its kernel alone sees the TBF counters and the
// delay lines of the links its nodes send on, so the lab's WAN bytes and health are the
// controller host's and every other host's together. One struct per message, both ends:
//   controller -> host  {"cmd":"figures","request":N,"health":B}
//   host -> controller  {"event":"figures","request":N,"wan_bytes":{...},"health":{...}|null}
// `wan_bytes` are the host's counters as they stand (cumulative: the asker subtracts two
// answers); `health` is the host's report from its agents' start to this request, sent
// when asked for (the host's monitor stops then, and later answers repeat it).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "controller/health/health_report.h"

namespace testbed {

struct FiguresRequest {
  uint64_t request = 0;  // the asker's number for it, echoed in the answer
  bool health = false;
};

struct HostFigures {
  uint64_t request = 0;
  std::map<std::string, uint64_t> wan_bytes;  // by "from>to"
  std::optional<HealthReport> health;
};

nlohmann::json to_json(const FiguresRequest& r);
nlohmann::json to_json(const HostFigures& f);

// Both throw std::invalid_argument naming the field: another process's words are checked
// whole (directions bounded in number and spelled "from>to", counts unsigned, the health
// report as health_from_wire checks it) before anything is kept.
FiguresRequest figures_request_from_json(const nlohmann::json& j);
HostFigures host_figures_from_json(const nlohmann::json& j);

// How long the controller waits for every host's answer: a host answers within its next
// look at the channel (200 ms), after stopping its health monitor, which asks each delay
// line once (at most 1 s each, health_monitor.h). Ten seconds leave room for a loaded
// machine; a host that has not answered by then is named as not reported.
constexpr auto kHostFiguresWait = std::chrono::seconds(10);

// A host reports at most this many link directions: both ways of every link, far over any
// topology's (Topology Zoo's largest has under 1000 links).
constexpr size_t kMaxReportedDirections = 65536;

}  // namespace testbed
