// Parses and validates a topology profile. Every problem in the file is reported at once
// as FILE:LINE:COL diagnostics (see ValidationError); nothing here touches the system.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "controller/topology/topology.h"

namespace testbed {

// What a free section of settings (the profile's `workload:`) may hold. The topology is
// data about the network and knows no training strategy: the run options pass their keys
// and checks in (workload_settings.h, parse_profile_file).
struct SettingRules {
  std::vector<std::string> keys;
  // "" when `value` is acceptable for `key`, else why not.
  std::function<std::string(const std::string& key, const std::string& value)> check;
};

// Throws ValidationError listing every error in the file.
Topology parse_topology_file(const std::string& path, const SettingRules& workload);

// Same, from text; `file_name` is only used in diagnostics.
Topology parse_topology_text(const std::string& text, const std::string& file_name,
                             const SettingRules& workload);

}  // namespace testbed
