// Reading the fields of a message between processes, one way for every contract: a field
// that is missing, of the wrong type, out of its range or unknown is refused with its name
// and the message's, as a ContractError. The contracts (this folder) use these; neither end
// reads a message's fields by literal name elsewhere.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace testbed {

class ContractError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The message's name ("setup") and the path to the object read ("setup.compute"), so an
// error says where the field was.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string where);
  // A message named by its field `key` ("event" for a reply, "cmd" for a command): refused
  // unless that field is `name`, which its errors then start with.
  static FieldReader named(const nlohmann::json& j, const char* name, const char* key = "event");

  template <class T>
  T required(const char* field) const {
    if (!object_.contains(field)) throw error(field, "is missing");
    return get<T>(field);
  }
  template <class T>
  T optional(const char* field, T fallback) const {
    return object_.contains(field) ? get<T>(field) : fallback;
  }
  // A number in [lo, hi].
  template <class T>
  T in_range(const char* field, T value, T lo, T hi) const {
    if (value < lo || value > hi)
      throw error(field, "is " + std::to_string(value) + ", outside [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + "]");
    return value;
  }
  // A whole number in [0, hi], required: nlohmann would turn -1 into 2^64 - 1 and 2.5 into 2
  // without a word. `whole_in` reads one from `value`, an entry of the map or list `field`.
  uint64_t whole(const char* field, uint64_t hi = UINT64_MAX) const;
  uint64_t whole_in(const char* field, const nlohmann::json& value, uint64_t hi = UINT64_MAX) const;
  // A finite number in [0, hi], required (a rate, bytes, seconds, a norm).
  double measure(const char* field, double hi = std::numeric_limits<double>::max()) const;
  // A list of floats, required; a null in it is a NaN (a diverged model's, which JSON writes
  // as null). Read as JSON first: casting a double past float's range is undefined.
  std::vector<float> floats(const char* field) const;
  // A key of the map `field` that names a node: its index as a peer writes it (digits, no
  // sign, space or leading zero: one node, one spelling), below `nodes`.
  size_t node_key(const char* field, const std::string& key, size_t nodes) const;
  // The part `field` (required), read by `read`, a reader of its own whose errors
  // (nlohmann's or std's) name a key but not where it sits: they are given the path here.
  template <class Read>
  auto part(const char* field, Read read) const {
    if (!object_.contains(field)) throw error(field, "is missing");
    try {
      return read(object_.at(field));
    } catch (const ContractError&) {
      throw;
    } catch (const std::exception& e) {
      throw error(field, std::string("is not as written: ") + e.what());
    }
  }
  // The object `field` (required), read by its own reader.
  FieldReader object(const char* field) const;
  // Refuses any field not in `known` (nor in `more`: a part's fields, such as the van's in
  // every setup), naming the first.
  void refuse_unknown(std::initializer_list<std::string_view> known,
                      std::span<const std::string_view> more = {}) const;
  const nlohmann::json& json() const { return object_; }
  const std::string& where() const { return where_; }  // "setup.gaia"
  ContractError error(const std::string& field, const std::string& problem) const;

 private:
  template <class T>
  T get(const char* field) const {
    try {
      return object_.at(field).get<T>();
    } catch (const nlohmann::json::exception&) {
      throw error(field, "has the wrong type (" + std::string(object_.at(field).type_name()) + ")");
    }
  }
  const nlohmann::json& object_;
  std::string where_;
};

}  // namespace testbed
