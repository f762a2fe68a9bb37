#include <iostream>

#include "commands.h"
#include "diagnostics.h"
#include "planner.h"
#include "privileges.h"
#include "profile_locator.h"
#include "topology_parser.h"

namespace testbed::cli {

bool lacks_privileges(const std::string& verb) {
  const std::string why = missing_privileges(verb);
  if (!why.empty()) std::cerr << why << "\n";
  return !why.empty();
}

std::optional<Plan> load_plan(const std::string& profile) {
  std::string path;
  try {
    path = locate_profile(profile);
  } catch (const std::exception& e) {
    std::cerr << "testbed: cannot find profile: " << e.what() << "\n";
    return std::nullopt;
  }
  try {
    return make_plan(parse_topology_file(path));
  } catch (const ValidationError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << d.str() << "\n";
    std::cerr << e.diagnostics().size() << " error" << (e.diagnostics().size() == 1 ? "" : "s")
              << "; nothing was changed\n";
    return std::nullopt;
  }
}

}  // namespace testbed::cli
