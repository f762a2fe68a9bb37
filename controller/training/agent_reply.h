// What an agent sends the controller, decoded: the routing id its control socket gave
// itself (its node index) and one JSON object with a string "event". Anything else is
// dropped and counted by the caller (AgentGroup): a control socket is the agents' own, but
// a message that does not decode must not end a run with an exception from a parser.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace testbed {

// (node, event), or nullopt when `id` is not a node index below `nodes` or `payload` is
// not a JSON object whose "event" is a string (an "error" event's "what", if present, a
// string too).
std::optional<std::pair<size_t, nlohmann::json>> decode_agent_reply(const std::string& id,
                                                                    const std::string& payload,
                                                                    size_t nodes);

}  // namespace testbed
