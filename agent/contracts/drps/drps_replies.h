// DRPS's replies to the controller checked whole: its sections of a parameter-server node's final
// report (a disk store's, WSP's master's). Its strategies' ReplyCheck (node_replies.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace testbed {

void check_drps_reply(const nlohmann::json& reply, size_t nodes, uint64_t max_clock);

}  // namespace testbed
