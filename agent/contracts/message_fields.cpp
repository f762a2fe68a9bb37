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

void FieldReader::refuse_unknown(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, value] : object_.items())
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw error(key, "is not a field of this message");
}

ContractError FieldReader::error(const std::string& field, const std::string& problem) const {
  return ContractError(where_ + "." + field + " " + problem);
}

}  // namespace testbed
