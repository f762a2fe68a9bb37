// Names listed for people, in messages: "a, b, c".
#pragma once

#include <string>
#include <vector>

namespace testbed {

inline std::string comma_list(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace testbed
