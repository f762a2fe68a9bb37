// A TCP or UDP port as users write one (on the command line, in a placement file), read one
// way everywhere: decimal digits only, 1 to 65535. "9464x", "+80", " 80" and "0" are not ports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace testbed {

std::optional<uint16_t> parse_port(const std::string& text);

// "ADDRESS:PORT" split at its last colon, the port read by parse_port; nullopt when there
// is no colon, the address is empty or the port is not one. The address is not checked.
struct HostPort {
  std::string address;
  uint16_t port = 0;
};
std::optional<HostPort> parse_host_port(const std::string& text);

}  // namespace testbed
