// DiLoCo's replies to the controller checked whole: its section of a worker's final report
// (Streaming DiLoCo writes the same). Its strategies' ReplyCheck (node_replies.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace testbed {

void check_diloco_reply(const nlohmann::json& reply, size_t nodes, uint64_t max_clock);

}  // namespace testbed
