#include "controller/topology/port_number.h"

namespace testbed {

std::optional<uint16_t> parse_port(const std::string& text) {
  // Five digits at most: no overflow, and a leading zero is a port still ("08080").
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const unsigned long value = std::stoul(text);
  if (value < 1 || value > 65535) return std::nullopt;
  return static_cast<uint16_t>(value);
}

std::optional<HostPort> parse_host_port(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  const auto port = parse_port(text.substr(colon + 1));
  if (!port) return std::nullopt;
  return HostPort{text.substr(0, colon), *port};
}

}  // namespace testbed
