#include "agent/contracts/message_fields.h"

#include <algorithm>

namespace testbed {

FieldReader::FieldReader(const nlohmann::json& object, std::string where)
    : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) throw ContractError(where_ + ": not an object");
}

FieldReader FieldReader::object(const char* field) const {
  if (!object_.contains(field)) throw error(field, "is missing");
  return FieldReader(object_.at(field), where_ + "." + field);
}

void FieldReader::refuse_unknown(std::initializer_list<std::string_view> known,
                                 std::span<const std::string_view> more) const {
  for (const auto& [key, value] : object_.items())
    if (std::find(known.begin(), known.end(), key) == known.end() &&
        std::find(more.begin(), more.end(), key) == more.end())
      throw error(key, "is not a field of this message");
}

size_t FieldReader::node_key(const char* field, const std::string& key, size_t nodes) const {
  // Nine digits at most: far more nodes than a lab holds, and no overflow.
  if (key.empty() || key.size() > 9 || key.find_first_not_of("0123456789") != std::string::npos ||
      (key.size() > 1 && key[0] == '0'))
    throw error(field, "has the key \"" + key + "\", which is no node index");
  const size_t node = std::stoul(key);
  if (node >= nodes)
    throw error(field, "names node " + key + ", past the lab's " + std::to_string(nodes));
  return node;
}

ContractError FieldReader::error(const std::string& field, const std::string& problem) const {
  return ContractError(where_ + "." + field + " " + problem);
}

}  // namespace testbed
