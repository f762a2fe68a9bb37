#include "controller/training/agent_reply.h"

namespace testbed {

std::optional<std::pair<size_t, nlohmann::json>> decode_agent_reply(const std::string& id,
                                                                    const std::string& payload,
                                                                    size_t nodes) {
  // A node index as the agent writes it (std::to_string): digits only, no sign or space,
  // and short enough not to overflow (nine digits: far more nodes than a lab holds).
  if (id.empty() || id.size() > 9 || id.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const size_t node = std::stoul(id);
  if (node >= nodes) return std::nullopt;
  auto j = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;  // a parse error is "discarded", not an object
  const auto event = j.find("event");
  if (event == j.end() || !event->is_string()) return std::nullopt;
  if (*event == "error") {
    const auto what = j.find("what");
    if (what != j.end() && !what->is_string()) return std::nullopt;
  }
  return std::pair{node, std::move(j)};
}

}  // namespace testbed
