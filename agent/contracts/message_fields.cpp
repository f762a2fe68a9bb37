#include "agent/contracts/message_fields.h"

#include <algorithm>
#include <cmath>

namespace testbed {

FieldReader::FieldReader(const nlohmann::json& object, std::string where)
    : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) throw ContractError(where_ + ": not an object");
}

FieldReader FieldReader::named(const nlohmann::json& j, const char* name, const char* key) {
  FieldReader r(j, name);
  if (r.required<std::string>(key) != name) throw r.error(key, "is not " + std::string(name));
  return r;
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

uint64_t FieldReader::whole(const char* field, uint64_t hi) const {
  if (!object_.contains(field)) throw error(field, "is missing");
  return whole_in(field, object_.at(field), hi);
}

uint64_t FieldReader::whole_in(const char* field, const nlohmann::json& value, uint64_t hi) const {
  if (!value.is_number_integer() || (!value.is_number_unsigned() && value.get<int64_t>() < 0))
    throw error(field, "holds a value that is no whole number >= 0");
  return in_range(field, value.get<uint64_t>(), uint64_t{0}, hi);
}

double FieldReader::measure(const char* field, double hi) const {
  const double v = required<double>(field);
  if (!std::isfinite(v) || v < 0) throw error(field, "is no finite number >= 0");
  return in_range(field, v, 0.0, hi);
}

std::vector<float> FieldReader::floats(const char* field) const {
  const auto list = required<nlohmann::json>(field);
  if (!list.is_array()) throw error(field, "is not a list");
  std::vector<float> out;
  out.reserve(list.size());
  for (const auto& v : list) {
    if (v.is_null()) {
      out.push_back(std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    if (!v.is_number() || std::fabs(v.get<double>()) > std::numeric_limits<float>::max())
      throw error(field, "holds a value that is no float");
    out.push_back(static_cast<float>(v.get<double>()));
  }
  return out;
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
