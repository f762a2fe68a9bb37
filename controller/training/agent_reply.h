// What an agent sends the controller, decoded: the routing id its control socket gave
// itself (its node index) and one JSON object with a string "event". Anything else is
// dropped and counted by the caller (AgentGroup): a control socket is the agents' own, but
// a message that does not decode must not end a run with an exception from a parser.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace testbed {

// (node, event), or nullopt when `id` is not a node index below `nodes` or `payload` is
// not a JSON object whose "event" is a string, or when a field the sessions read is not of
// its shape: "clock" and "iteration" whole numbers of at most `max_clock`; "seconds",
// "loss" and "bytes" numbers (or null, a NaN); and every reply with a contract whole by
// it: hello, ready, error and a "stats" report's van counters
// (agent/contracts/node_replies.h), NetStorm's probed and done
// (agent/contracts/tree_messages.h), a worker's clock, eval and finished
// (agent/contracts/worker_events.h), MLfabric's update, pulls, arrived and replica
// (agent/contracts/mlfabric/mlfabric_events.h), Gaia's mirror_cut
// (agent/contracts/gaia/gaia_events.h) and a parameter-server node's part of its "stats"
// (agent/contracts/ps_node_report.h) or a ring's model (agent/contracts/model_report.h). (JSON text
// has no NaN or infinity: every number parsed is finite.) A node index as an agent writes it
// (std::to_string(n) == id) and below `nodes`; nullopt for anything else ("00", " 1", "+1", "1e3",
// an index past the lab).
std::optional<size_t> canonical_node_index(const std::string& id, size_t nodes);

std::optional<std::pair<size_t, nlohmann::json>> decode_agent_reply(
    const std::string& id, const std::string& payload, size_t nodes,
    uint64_t max_clock = UINT64_MAX);

}  // namespace testbed
