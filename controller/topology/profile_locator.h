// Finds a profile: a path that exists wins; a bare name ("internet2.yaml" or "internet2")
// falls back to the profiles bundled with the installation or the source tree.
#pragma once

#include <string>
#include <vector>

namespace testbed {

std::vector<std::string> bundled_profile_dirs();
// Throws std::runtime_error listing where it looked.
std::string locate_profile(const std::string& name);

// The Grafana dashboards and provisioning shipped with the testbed (dashboards/), from the
// installation or the source tree; empty when neither has them.
std::string bundled_dashboards_dir();

}  // namespace testbed
