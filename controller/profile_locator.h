// Finds a profile: a path that exists wins; a bare name ("internet2.yaml" or "internet2")
// falls back to the profiles bundled with the installation or the source tree.
#pragma once

#include <string>
#include <vector>

namespace testbed {

std::vector<std::string> bundled_profile_dirs();
// Throws std::runtime_error listing where it looked.
std::string locate_profile(const std::string& name);

}  // namespace testbed
