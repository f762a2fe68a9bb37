#include "controller/training/host_figures.h"

#include <stdexcept>

#include "controller/health/health_wire.h"

namespace testbed {
namespace {

// Request numbers are counted up from 1 by one controller: 2^53 keeps them exact in any
// JSON reader.
constexpr uint64_t kMaxRequest = uint64_t{1} << 53;
// "from>to" of two node names, each at most health_wire's 255 bytes.
constexpr size_t kMaxDirectionName = 2 * 255 + 1;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument(what);
}

uint64_t request_number(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("request") || !j["request"].is_number_unsigned() ||
      j["request"].get<uint64_t>() == 0 || j["request"].get<uint64_t>() > kMaxRequest)
    bad("'request' is not a request's number");
  return j["request"].get<uint64_t>();
}

}  // namespace

nlohmann::json to_json(const FiguresRequest& r) {
  return {{"cmd", "figures"}, {"request", r.request}, {"health", r.health}};
}

nlohmann::json to_json(const HostFigures& f) {
  return {{"event", "figures"},
          {"request", f.request},
          {"wan_bytes", f.wan_bytes},
          {"health", f.health ? health_to_wire(*f.health) : nlohmann::json(nullptr)}};
}

FiguresRequest figures_request_from_json(const nlohmann::json& j) {
  FiguresRequest r;
  r.request = request_number(j);
  if (!j.contains("health") || !j["health"].is_boolean()) bad("'health' is not true or false");
  r.health = j["health"].get<bool>();
  return r;
}

HostFigures host_figures_from_json(const nlohmann::json& j) {
  HostFigures f;
  f.request = request_number(j);
  if (!j.contains("wan_bytes") || !j["wan_bytes"].is_object() ||
      j["wan_bytes"].size() > kMaxReportedDirections)
    bad("'wan_bytes' is not a map of at most " + std::to_string(kMaxReportedDirections) +
        " directions");
  for (const auto& [direction, bytes] : j["wan_bytes"].items()) {
    const size_t arrow = direction.find('>');
    if (direction.size() > kMaxDirectionName || arrow == std::string::npos || arrow == 0 ||
        arrow + 1 == direction.size())
      bad("'wan_bytes' has a key that is no direction");
    if (!bytes.is_number_unsigned()) bad("'wan_bytes' of " + direction + " is not a count");
    f.wan_bytes[direction] = bytes.get<uint64_t>();
  }
  if (!j.contains("health")) bad("no 'health'");
  if (!j["health"].is_null()) f.health = health_from_wire(j["health"], kMaxReportedDirections);
  return f;
}

}  // namespace testbed
