// Gaia's replies to the controller checked whole: its mirror cuts, and its section of a data
// center's final report. Its strategies' ReplyCheck (node_replies.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace testbed {

void check_gaia_reply(const nlohmann::json& reply, size_t nodes, uint64_t max_clock);

}  // namespace testbed
