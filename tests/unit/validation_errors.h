// The messages a profile's validation gives ("FILE:LINE:COL: message"), or none when it
// parses: what the tests of refusals compare.
#pragma once

#include <string>
#include <vector>

#include "controller/topology/diagnostics.h"

namespace testbed {

template <typename Parse>
std::vector<std::string> validation_errors(Parse&& parse) {
  try {
    parse();
  } catch (const ValidationError& e) {
    std::vector<std::string> out;
    for (const auto& d : e.diagnostics()) out.push_back(d.str());
    return out;
  }
  return {};
}

}  // namespace testbed
