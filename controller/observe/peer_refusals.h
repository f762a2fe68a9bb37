// What the agents refused during a run, from their final counters (van.h): malformed
// messages dropped, by the node that dropped them and the connection they came on (a
// member by name, a stranger by its id), connections refused at the handshake, and
// connections cut later (a frame over the run's largest message, a peer gone). A run
// reports them in `peers` beside its figures: a run that went on through garbage says so.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "agent/contracts/node_replies.h"

namespace testbed {

// `counters[n]` is node n's van counters from its final report; `names[n]` its name.
nlohmann::json peer_refusals(const std::vector<VanCounters>& counters,
                             const std::vector<std::string>& names);

// The counters of a system's final reports ("stats", checked whole as they arrived); a
// node that died stands in with none.
std::vector<VanCounters> counters_of_reports(const std::vector<nlohmann::json>& reports);

// The metrics event of a summary's `peers` (train_metrics.h): every node, zeros included,
// so a clean run sets the gauges back to 0.
nlohmann::json peers_event(const nlohmann::json& peers, const std::vector<std::string>& names,
                           const std::string& strategy);

}  // namespace testbed
