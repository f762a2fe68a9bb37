// A whole file as text (empty when it cannot be read): goldens and bundled profiles.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace testbed {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace testbed
