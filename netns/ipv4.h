// IPv4 addresses and prefixes as plain values, for the planner's address arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace testbed {

struct Ipv4Address {
  uint32_t value = 0;  // host byte order
  std::string str() const;
  static std::optional<Ipv4Address> parse(const std::string& text);
  auto operator<=>(const Ipv4Address&) const = default;
};

struct Ipv4Prefix {
  Ipv4Address address;  // may carry host bits (an interface address "198.19.0.1/30")
  int length = 32;

  uint64_t size() const { return uint64_t{1} << (32 - length); }
  Ipv4Address network() const;
  bool contains(Ipv4Address a) const;
  std::string str() const;
  // "a.b.c.d/n"; host bits allowed only when `allow_host_bits`.
  static std::optional<Ipv4Prefix> parse(const std::string& text, bool allow_host_bits = false);
  auto operator<=>(const Ipv4Prefix&) const = default;
};

}  // namespace testbed
