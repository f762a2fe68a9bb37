#include "agent/contracts/van_setup.h"

namespace testbed {

void write_van_setup(nlohmann::json& setup, const VanSetup& v) {
  setup["endpoints"] = v.endpoints;
  setup["secret"] = v.secret;
  setup["max_message"] = v.max_message;
  if (!v.van_curve.is_null()) setup["van_curve"] = v.van_curve;
}

VanSetup van_setup_from(const FieldReader& r) {
  VanSetup v;
  v.endpoints = r.required<std::vector<std::string>>("endpoints");
  if (v.endpoints.empty()) throw r.error("endpoints", "is empty");
  v.secret = r.optional<std::string>("secret", "");
  v.max_message = r.optional<uint64_t>("max_message", 0);
  v.van_curve = r.optional<nlohmann::json>("van_curve", nullptr);
  if (!v.van_curve.is_null() && !v.van_curve.is_object())
    throw r.error("van_curve", "is not an object of four keys");
  return v;
}

}  // namespace testbed
