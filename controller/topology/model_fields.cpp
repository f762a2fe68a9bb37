#include "controller/topology/model_fields.h"

#include <stdexcept>

namespace testbed {

bool ModelFields::is_map(const std::string& example) {
  if (node_.IsMap()) return true;
  fail(node_, "expected " + example);
  return false;
}

void ModelFields::allow(std::initializer_list<const char*> allowed) {
  std::string names;
  for (const char* k : allowed) names += (names.empty() ? "" : ", ") + std::string(k);
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.Scalar();
    bool known = false;
    for (const char* k : allowed) known = known || key == k;
    if (!known) fail(it->first, "unknown key '" + key + "' (" + names + ")");
  }
}

void ModelFields::fail(const YAML::Node& at, const std::string& message) {
  error_(at, where_ + message);
  ok_ = false;
}

void ModelFields::seed(uint64_t& out) {
  if (!node_["seed"]) return;
  try {
    // stoull takes "-1" as a huge number: a seed is written as a whole number.
    const std::string text = node_["seed"].Scalar();
    if (text.empty() || text[0] == '-' || text[0] == '+') throw std::invalid_argument(text);
    size_t used = 0;
    const uint64_t v = std::stoull(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    out = v;
  } catch (const std::exception&) {
    fail(node_["seed"], "seed: expected a whole number");
  }
}

}  // namespace testbed
