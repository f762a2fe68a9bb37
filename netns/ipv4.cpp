#include "netns/ipv4.h"

#include <arpa/inet.h>

namespace testbed {

std::string Ipv4Address::str() const {
  return std::to_string(value >> 24) + "." + std::to_string((value >> 16) & 0xff) + "." +
         std::to_string((value >> 8) & 0xff) + "." + std::to_string(value & 0xff);
}

std::optional<Ipv4Address> Ipv4Address::parse(const std::string& text) {
  in_addr a{};
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) return std::nullopt;
  return Ipv4Address{ntohl(a.s_addr)};
}

static uint32_t mask_of(int length) {
  return length == 0 ? 0 : ~uint32_t{0} << (32 - length);
}

Ipv4Address Ipv4Prefix::network() const {
  return Ipv4Address{address.value & mask_of(length)};
}

bool Ipv4Prefix::contains(Ipv4Address a) const {
  return (a.value & mask_of(length)) == network().value;
}

std::string Ipv4Prefix::str() const {
  return address.str() + "/" + std::to_string(length);
}

std::optional<Ipv4Prefix> Ipv4Prefix::parse(const std::string& text, bool allow_host_bits) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  const auto addr = Ipv4Address::parse(text.substr(0, slash));
  const std::string len_text = text.substr(slash + 1);
  if (!addr || len_text.empty() || len_text.size() > 2 ||
      len_text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const int length = std::stoi(len_text);
  if (length > 32) return std::nullopt;
  Ipv4Prefix p{*addr, length};
  if (!allow_host_bits && p.network() != p.address) return std::nullopt;
  return p;
}

}  // namespace testbed
